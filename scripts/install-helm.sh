#!/usr/bin/env bash
# Makes Helm v4.3.2 available and prints its path on stdout: the chart's lint and render
# (test/helm-chart.test.ts). Order: $HELM_PATH, `helm` on PATH, the Go bin folder; else it is built
# with `go install` from the Go module proxy (a few minutes on two cores the first time; Go's caches
# make a rebuild quick). Messages and build progress go to stderr.
set -euo pipefail
WANT="v4.3.2"
MODULE="helm.sh/helm/v4/cmd/helm@${WANT}"

# A go-installed helm reports its module version through `go version -m`; a release binary
# through `helm version`.
version_of() {
  local v=""
  if command -v go >/dev/null 2>&1; then
    v=$(go version -m "$1" 2>/dev/null | awk '$1 == "mod" && $2 == "helm.sh/helm/v4" { print $3 }')
  fi
  [ -n "$v" ] || v=$("$1" version --template '{{.Version}}' 2>/dev/null || true)
  echo "$v"
}

candidates=()
[ -n "${HELM_PATH:-}" ] && candidates+=("$HELM_PATH")
command -v helm >/dev/null 2>&1 && candidates+=("$(command -v helm)")
if command -v go >/dev/null 2>&1; then
  gobin="$(go env GOBIN)"
  if [ -z "$gobin" ]; then gopath="$(go env GOPATH)"; gobin="${gopath%%:*}/bin"; fi
  candidates+=("$gobin/helm")
fi

for c in "${candidates[@]}"; do
  if [ -x "$c" ] && [ "$(version_of "$c")" = "$WANT" ]; then echo "$c"; exit 0; fi
done

if ! command -v go >/dev/null 2>&1; then
  echo "Helm ${WANT} was not found and Go is not installed to build it (or set HELM_PATH)." >&2
  exit 1
fi

echo "Helm ${WANT} is not installed: building it with Go into $gobin (go install ${MODULE})." >&2
start=$(date +%s)
go install "$MODULE" >&2
echo "Built Helm ${WANT} in $(($(date +%s) - start)) s: $gobin/helm" >&2
if [ "$(version_of "$gobin/helm")" != "$WANT" ]; then
  echo "go install finished but $gobin/helm is not ${WANT}" >&2
  exit 1
fi
echo "$gobin/helm"
