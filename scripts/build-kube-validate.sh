#!/usr/bin/env bash
# Builds deploy/validate (kube-validate: rendered manifests decoded strictly into the k8s.io/api
# types, then checked) and prints its path on stdout. Its modules come from the Go module proxy
# (go.sum pins them); the binary goes to the cache folder and is rebuilt when its sources change.
# Order: $KUBE_VALIDATE_PATH, then the cached build. Messages go to stderr.
set -euo pipefail
cd "$(dirname "$0")/../deploy/validate"
if [ -n "${KUBE_VALIDATE_PATH:-}" ] && [ -x "$KUBE_VALIDATE_PATH" ]; then echo "$KUBE_VALIDATE_PATH"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "kube-validate is not built and Go is not installed to build it (or set KUBE_VALIDATE_PATH)." >&2
  exit 1
fi
sources=$(cat go.mod go.sum ./*.go | sha256sum | cut -c1-16)
CACHE="${TEMPORAL_MCP_CACHE:-$HOME/.cache/temporal-mcp-gateway}/kube-validate-$sources"
if [ -x "$CACHE/kube-validate" ]; then echo "$CACHE/kube-validate"; exit 0; fi
echo "building kube-validate (deploy/validate) into $CACHE" >&2
start=$(date +%s)
mkdir -p "$CACHE"
go build -trimpath -o "$CACHE/kube-validate.build" . >&2
mv "$CACHE/kube-validate.build" "$CACHE/kube-validate"
echo "Built kube-validate in $(($(date +%s) - start)) s: $CACHE/kube-validate" >&2
echo "$CACHE/kube-validate"
