#!/usr/bin/env bash
# Makes the Temporal CLI v1.5.1 (dev server + Web UI) available and prints its path.
# Order: $TEMPORAL_CLI_PATH, `temporal` on PATH, the Go bin folder; else `go install` it.
# Later CLI tags carry a `replace` directive and cannot be go-installed, hence the pin.
set -euo pipefail
WANT="1.5.1"
MODULE="github.com/temporalio/cli/cmd/temporal@v${WANT}"

# A go-installed CLI reports "0.0.0-DEV": its module version comes from `go version -m`.
version_of() {
  local v
  if command -v go >/dev/null 2>&1; then
    v=$(go version -m "$1" 2>/dev/null | awk '$1 == "mod" && $2 == "github.com/temporalio/cli" { sub(/^v/, "", $3); print $3 }')
  fi
  [ -n "${v:-}" ] || v=$("$1" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1)
  echo "$v"
}

candidates=()
[ -n "${TEMPORAL_CLI_PATH:-}" ] && candidates+=("$TEMPORAL_CLI_PATH")
command -v temporal >/dev/null 2>&1 && candidates+=("$(command -v temporal)")
if command -v go >/dev/null 2>&1; then
  gobin="$(go env GOBIN)"; [ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
  candidates+=("$gobin/temporal")
fi

for c in "${candidates[@]}"; do
  if [ -x "$c" ] && [ "$(version_of "$c")" = "$WANT" ]; then echo "$c"; exit 0; fi
done

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
The Temporal CLI v${WANT} was not found and Go is not installed to build it.
Either install Go (https://go.dev/doc/install) and run this script again, or install the
Temporal CLI v${WANT} yourself and set TEMPORAL_CLI_PATH to the binary.
MSG
  exit 1
fi

echo "Building the Temporal CLI v${WANT} with go install (first build takes a few minutes)..." >&2
start=$(date +%s)
go install "$MODULE" >&2
echo "Built in $(( $(date +%s) - start )) s." >&2
if [ "$(version_of "$gobin/temporal")" != "$WANT" ]; then
  echo "go install finished but $gobin/temporal is not v${WANT}" >&2
  exit 1
fi
echo "$gobin/temporal"
