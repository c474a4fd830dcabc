#!/usr/bin/env bash
# Makes the Temporal CLI v1.5.1 (dev server + Web UI) available and prints its path on stdout.
# Order: $TEMPORAL_CLI_PATH, `temporal` on PATH, the Go bin folder; else `go install` it.
# Messages and build progress go to stderr. `npm start` and `npm test` run it when the CLI is missing.
# Later CLI tags carry a `replace` directive and cannot be go-installed, hence the pin.
set -euo pipefail
WANT="1.5.1"
MODULE="github.com/temporalio/cli/cmd/temporal@v${WANT}"
PROGRESS_EVERY=10 # seconds between progress lines while go builds

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
  gobin="$(go env GOBIN)"
  if [ -z "$gobin" ]; then gopath="$(go env GOPATH)"; gobin="${gopath%%:*}/bin"; fi
  candidates+=("$gobin/temporal")
fi

for c in "${candidates[@]}"; do
  if [ -x "$c" ] && [ "$(version_of "$c")" = "$WANT" ]; then echo "$c"; exit 0; fi
done

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
The Temporal CLI v${WANT} was not found and Go is not installed to build it.
Either install Go (https://go.dev/doc/install) and run this again, or install the
Temporal CLI v${WANT} yourself and set TEMPORAL_CLI_PATH to the binary.
MSG
  exit 1
fi

cat >&2 <<MSG
The Temporal CLI v${WANT} (the Temporal dev server and Web UI) is not installed: building it with Go
into $gobin (go install ${MODULE}).
The first build downloads and compiles its modules and takes a few minutes; later builds reuse Go's caches.
MSG
start=$(date +%s)
# `go install -v` names each package it compiles: they are counted, and a progress line goes out
# every PROGRESS_EVERY seconds (also while it links, which prints nothing). Downloads and anything
# else go prints (errors) are shown as they come.
go install -v "$MODULE" 2>&1 | {
  compiled=0
  last=$start
  while :; do
    if IFS= read -r -t "$PROGRESS_EVERY" line; then
      case "$line" in
        *[[:space:]]* | go:*) echo "  $line" >&2 ;;
        *) compiled=$((compiled + 1)) ;;
      esac
    elif [ $? -le 128 ]; then
      break # end of go's output
    fi
    now=$(date +%s)
    if [ $((now - last)) -ge "$PROGRESS_EVERY" ]; then
      if [ "$compiled" -gt 0 ]; then
        echo "  ... $((now - start)) s: $compiled packages compiled so far" >&2
      else
        echo "  ... $((now - start)) s: still building" >&2
      fi
      last=$now
    fi
  done
}
echo "Built the Temporal CLI v${WANT} in $(($(date +%s) - start)) s: $gobin/temporal" >&2
if [ "$(version_of "$gobin/temporal")" != "$WANT" ]; then
  echo "go install finished but $gobin/temporal is not v${WANT}" >&2
  exit 1
fi
echo "$gobin/temporal"
