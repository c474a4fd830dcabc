#!/usr/bin/env bash
# Builds what `npm run cluster` needs from Go, when it is not there yet:
#   server      the Temporal server v1.32.2 (go.temporal.io/server/cmd/server), run once per
#               service (--service frontend, ...)
#   sql         the server's SQL schema tool (go.temporal.io/server/cmd/tools/sql)
#   cluster-ui  the Temporal Web UI server (launcher/cluster/ui: the UI server the CLI embeds,
#               github.com/temporalio/ui-server/v2 v2.42.1, pointed at the cluster's frontend)
# The server and its SQL tool go to a folder of their release under the Go bin folder
# (temporal-server-v1.32.2/), so builds of another release stay where they are; cluster-ui goes to
# the Go bin folder itself. go.temporal.io/server v1.32.2 has no `replace` directive in its go.mod,
# so `go install` works; that go.mod needs Go 1.26.10 or later, so the build runs with the Go
# toolchain SERVER_GO_TOOLCHAIN (go1.27.3 unless set), which the go command fetches from the Go
# module proxy when it is not the local one.
# The first build takes a few minutes (4.5 min on 2 cores, the toolchain's download included).
set -euo pipefail
SERVER_VERSION="1.32.2"
SERVER_GO_TOOLCHAIN="${SERVER_GO_TOOLCHAIN:-go1.27.3}"
UI_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../launcher/cluster/ui" && pwd)"

if ! command -v go >/dev/null 2>&1; then
  echo "Go is needed to build the Temporal server v${SERVER_VERSION} (https://go.dev/doc/install)." >&2
  exit 1
fi
gobin="$(go env GOBIN)"
if [ -z "$gobin" ]; then gopath="$(go env GOPATH)"; gobin="${gopath%%:*}/bin"; fi
server_bin="$gobin/temporal-server-v${SERVER_VERSION}"

is_pinned() {
  [ -x "$1" ] && go version -m "$1" 2>/dev/null |
    awk -v want="v${SERVER_VERSION}" '$1 == "mod" && $2 == "go.temporal.io/server" && $3 == want { found = 1 } END { exit !found }'
}

if is_pinned "$server_bin/server" && is_pinned "$server_bin/sql"; then
  echo "Temporal server v${SERVER_VERSION} and SQL tool: $server_bin/server, $server_bin/sql" >&2
else
  echo "Building the Temporal server v${SERVER_VERSION} and its SQL tool with ${SERVER_GO_TOOLCHAIN} into $server_bin (a few minutes the first time)..." >&2
  start=$(date +%s)
  GOBIN="$server_bin" GOTOOLCHAIN="$SERVER_GO_TOOLCHAIN" go install \
    "go.temporal.io/server/cmd/server@v${SERVER_VERSION}" "go.temporal.io/server/cmd/tools/sql@v${SERVER_VERSION}"
  echo "Built in $(($(date +%s) - start)) s: $server_bin/server, $server_bin/sql" >&2
fi

if [ -x "$gobin/cluster-ui" ] && [ "$gobin/cluster-ui" -nt "$UI_DIR/main.go" ]; then
  echo "Web UI server: $gobin/cluster-ui" >&2
else
  echo "Building the Web UI server into $gobin/cluster-ui..." >&2
  (cd "$UI_DIR" && go install .)
  echo "Web UI server: $gobin/cluster-ui" >&2
fi
