#!/usr/bin/env bash
# Makes the Versity S3 Gateway (versitygw) v1.8.0 available and prints its path on stdout: the
# S3-compatible server the artifact-store tests run (posix backend: buckets are folders). Order:
# $VERSITYGW_PATH, then the cached build; else it is built with Go from its module (about three
# minutes on two cores the first time; Go's caches make a rebuild quick). Messages go to stderr.
set -euo pipefail
WANT="v1.8.0"
MODULE="github.com/versity/versitygw"
CACHE="${TEMPORAL_MCP_CACHE:-$HOME/.cache/temporal-mcp-gateway}/versitygw-${WANT}"

# The build stamps the version into the binary; `versitygw --version` prints "Version  : v1.8.0".
version_of() {
  "$1" --version 2>/dev/null | awk -F': *' '/^Version/ { print $2; exit }'
}

for c in "${VERSITYGW_PATH:-}" "$CACHE/versitygw"; do
  if [ -n "$c" ] && [ -x "$c" ] && [ "$(version_of "$c")" = "$WANT" ]; then echo "$c"; exit 0; fi
done

if ! command -v go >/dev/null 2>&1; then
  echo "versitygw ${WANT} was not found and Go is not installed to build it (or set VERSITYGW_PATH)." >&2
  exit 1
fi

echo "versitygw ${WANT} is not installed: building it with Go into $CACHE (a few minutes the first time)." >&2
start=$(date +%s)
mkdir -p "$CACHE"
GOBIN="$CACHE/.build" go install -trimpath \
  -ldflags "-X main.Version=${WANT} -X main.Build=${WANT} -X main.BuildTime=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  "${MODULE}/cmd/versitygw@${WANT}" >&2
mv "$CACHE/.build/versitygw" "$CACHE/versitygw"
rmdir "$CACHE/.build" 2>/dev/null || true
if [ "$(version_of "$CACHE/versitygw")" != "$WANT" ]; then
  echo "the build finished but $CACHE/versitygw does not say it is ${WANT}" >&2
  exit 1
fi
echo "Built versitygw ${WANT} in $(($(date +%s) - start)) s: $CACHE/versitygw" >&2
echo "$CACHE/versitygw"
