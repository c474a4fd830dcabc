#!/usr/bin/env bash
# Makes Jaeger v1.76.0 all-in-one (OTLP/HTTP on 4318, UI and query API on 16686) available and
# prints its path on stdout. Order: $JAEGER_PATH, `jaeger` on PATH, the Go bin folder; else
# build it with Go. Messages and build progress go to stderr. `npm test` (the tracing test) and
# `npm start` with OTEL_TRACE_UI=jaeger run it when the binary is missing.
set -euo pipefail
WANT="1.76.0"
MODULE="github.com/jaegertracing/jaeger"
PROGRESS_EVERY=10 # seconds between progress lines while go builds

# The build below stamps the version into the binary; `jaeger version` prints it as JSON.
version_of() {
  "$1" version 2>/dev/null | grep -oE '"gitVersion": *"v[0-9]+\.[0-9]+\.[0-9]+"' | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1
}

candidates=()
[ -n "${JAEGER_PATH:-}" ] && candidates+=("$JAEGER_PATH")
command -v jaeger >/dev/null 2>&1 && candidates+=("$(command -v jaeger)")
if command -v go >/dev/null 2>&1; then
  gobin="$(go env GOBIN)"
  if [ -z "$gobin" ]; then gopath="$(go env GOPATH)"; gobin="${gopath%%:*}/bin"; fi
  candidates+=("$gobin/jaeger")
fi

for c in "${candidates[@]}"; do
  if [ -x "$c" ] && [ "$(version_of "$c")" = "$WANT" ]; then echo "$c"; exit 0; fi
done

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
Jaeger v${WANT} was not found and Go is not installed to build it.
Either install Go (https://go.dev/doc/install) and run this again, or install Jaeger v${WANT}
all-in-one yourself and set JAEGER_PATH to the binary.
MSG
  exit 1
fi

cat >&2 <<MSG
Jaeger v${WANT} (all-in-one: collector, in-memory store, query API and UI) is not installed:
building it with Go into $gobin from the module ${MODULE}@v${WANT}.
The first build downloads and compiles its modules and takes several minutes; later builds reuse Go's caches.
MSG
start=$(date +%s)
# `go install ...@v1.76.0` refuses the module (its go.mod has a replace directive): build it inside
# the module's own folder in Go's module cache instead, where the replace applies, with the
# version stamped in as Jaeger's release builds do.
dir=$(go mod download -json "${MODULE}@v${WANT}" | awk -F'"' '$2 == "Dir" { print $4 }')
[ -d "$dir" ] || { echo "go mod download gave no folder for ${MODULE}@v${WANT}" >&2; exit 1; }
mkdir -p "$gobin"
# `go build -v` names each package it compiles: they are counted, and a progress line goes out
# every PROGRESS_EVERY seconds (also while it links, which prints nothing).
(cd "$dir" && go build -v -trimpath -o "$gobin/jaeger.tmp" \
  -ldflags "-X ${MODULE}/internal/version.latestVersion=v${WANT}" ./cmd/jaeger) 2>&1 | {
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
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "building Jaeger v${WANT} failed (go build exit $status)" >&2
  exit 1
fi
mv "$gobin/jaeger.tmp" "$gobin/jaeger"
echo "Built Jaeger v${WANT} in $(($(date +%s) - start)) s: $gobin/jaeger" >&2
if [ "$(version_of "$gobin/jaeger")" != "$WANT" ]; then
  echo "the build finished but $gobin/jaeger is not v${WANT}" >&2
  exit 1
fi
echo "$gobin/jaeger"
