#!/usr/bin/env bash
# Builds what `npm run cluster` needs from Go, into the Go bin folder, when it is not there yet:
#   server      the Temporal server v1.29.1 (go.temporal.io/server/cmd/server; the version the
#               pinned Temporal CLI v1.5.1 embeds), run once per service (--service frontend, ...)
#   sql         the server's SQL schema tool (go.temporal.io/server/cmd/tools/sql)
#   cluster-ui  the Temporal Web UI server (launcher/cluster/ui: the UI server the CLI embeds,
#               github.com/temporalio/ui-server/v2 v2.42.1, pointed at the cluster's frontend)
# go.temporal.io/server v1.29.1 has no `replace` directive in its go.mod, so `go install` works.
# The first build takes a few minutes (it reuses the Temporal CLI build's module and build caches).
set -euo pipefail
SERVER_VERSION="1.29.1"
UI_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../launcher/cluster/ui" && pwd)"

if ! command -v go >/dev/null 2>&1; then
  echo "Go is needed to build the Temporal server v${SERVER_VERSION} (https://go.dev/doc/install)." >&2
  exit 1
fi
gobin="$(go env GOBIN)"
if [ -z "$gobin" ]; then gopath="$(go env GOPATH)"; gobin="${gopath%%:*}/bin"; fi

is_pinned() {
  [ -x "$1" ] && go version -m "$1" 2>/dev/null |
    awk -v want="v${SERVER_VERSION}" '$1 == "mod" && $2 == "go.temporal.io/server" && $3 == want { found = 1 } END { exit !found }'
}

if is_pinned "$gobin/server" && is_pinned "$gobin/sql"; then
  echo "Temporal server v${SERVER_VERSION} and SQL tool: $gobin/server, $gobin/sql" >&2
else
  echo "Building the Temporal server v${SERVER_VERSION} and its SQL tool into $gobin (a few minutes the first time)..." >&2
  start=$(date +%s)
  go install "go.temporal.io/server/cmd/server@v${SERVER_VERSION}" "go.temporal.io/server/cmd/tools/sql@v${SERVER_VERSION}"
  echo "Built in $(($(date +%s) - start)) s: $gobin/server, $gobin/sql" >&2
fi

if [ -x "$gobin/cluster-ui" ] && [ "$gobin/cluster-ui" -nt "$UI_DIR/main.go" ]; then
  echo "Web UI server: $gobin/cluster-ui" >&2
else
  echo "Building the Web UI server into $gobin/cluster-ui..." >&2
  (cd "$UI_DIR" && go install .)
  echo "Web UI server: $gobin/cluster-ui" >&2
fi
