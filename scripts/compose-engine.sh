#!/usr/bin/env bash
# A Docker-compatible engine for `docker compose` on a machine without Docker: Debian's podman,
# rootful, its Docker API served on a socket, and the Compose v2 plugin of the docker CLI.
# Idempotent; prints the DOCKER_HOST to use as its last line. Expects the Debian packages
# podman, runc, netavark and aardvark-dns, Go, and a docker CLI (.ci/run installs them).
set -euo pipefail

SOCKET=${PODMAN_SOCKET:-/run/podman/podman.sock}
COMPOSE_VERSION=v2.29.7 # its go.mod has no replace directive, so `go install` builds it
PLUGIN_DIR=${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins
say() { echo "compose-engine: $*" >&2; }

# Podman schedules health checks with systemd timers; without systemd (as here) no check ever runs
# and every `condition: service_healthy` waits forever. This loop runs each running container's
# check at its own interval instead, as Docker's engine does.
if [ "${1:-}" = --health-ticker ]; then
  declare -A last
  while sleep 1; do
    now=$(date +%s)
    while read -r id interval; do
      [ -n "$id" ] || continue
      seconds=${interval%%.*}
      (( now - ${last[$id]:-0} >= (seconds > 0 ? seconds : 30) )) || continue
      last[$id]=$now
      podman healthcheck run "$id" >/dev/null 2>&1 &
    done < <(podman ps -q --filter health=starting --filter health=healthy --filter health=unhealthy \
      | xargs -r podman inspect --format '{{.Id}} {{.Config.Healthcheck.Interval.Seconds}}' 2>/dev/null)
  done
fi

# containers.conf: crun fails here ("cgroups in hybrid mode not supported"), runc works; and the
# default RLIMIT_NOFILE podman sets is above what this machine lets a process raise it to.
conf=/etc/containers/containers.conf
if ! grep -qs '^default_ulimits = \[\]' "$conf" || ! grep -qs '^runtime = "runc"' "$conf"; then
  mkdir -p /etc/containers
  cat >"$conf" <<'CONF'
# Written by scripts/compose-engine.sh.
[containers]
default_ulimits = []

[engine]
runtime = "runc"

[engine.runtimes]
runc = ["/usr/sbin/runc"]
CONF
  say "wrote $conf (runtime runc, no default ulimits)"
fi

# A service (or health loop) left by an earlier run inside a checkout since deleted cannot start
# containers any more ("write child: broken pipe"): end both, and start them afresh below.
pidfile=$(dirname "$SOCKET")/podman-service.pid
ticker=$(dirname "$SOCKET")/health-ticker.pid
for file in "$pidfile" "$ticker"; do
  pid=$(cat "$file" 2>/dev/null || true)
  if [ -n "$pid" ] && [[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" == *" (deleted)" ]]; then
    say "ending pid $pid (from $file): its working folder was deleted"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
done

# The Docker-compatible API. Started in the background, outliving this script (the CI run ends it),
# from / so that it holds no checkout's folder.
if ! curl -fsS --max-time 2 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; then
  mkdir -p "$(dirname "$SOCKET")"
  log=${PODMAN_SERVICE_LOG:-/tmp/podman-service.log}
  (cd / && exec setsid podman system service --time=0 "unix://$SOCKET" >"$log" 2>&1 </dev/null) &
  echo $! >"$pidfile"
  for _ in $(seq 1 100); do
    curl -fsS --max-time 2 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -fsS --max-time 2 --unix-socket "$SOCKET" http://d/_ping >/dev/null || {
    say "podman system service did not answer on $SOCKET; its log:"
    cat "$log" >&2
    exit 1
  }
  say "podman's Docker API on $SOCKET (pid $(cat "$pidfile"), log $log)"
fi

if ! { [ -f "$ticker" ] && kill -0 "$(cat "$ticker")" 2>/dev/null; }; then
  self=$(realpath "$0")
  (cd / && exec setsid bash "$self" --health-ticker >/dev/null 2>&1 </dev/null) &
  echo $! >"$ticker"
  say "health checks run by a loop (pid $(cat "$ticker")): podman has no systemd timers here"
fi

# The Compose v2 plugin, built once from its Go module (Go keeps its caches for the next build).
if ! docker compose version >/dev/null 2>&1; then
  say "building the docker compose plugin $COMPOSE_VERSION with go install (a few minutes the first time)"
  bin=$(mktemp -d)
  GOBIN="$bin" go install -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
    "github.com/docker/compose/v2/cmd@$COMPOSE_VERSION"
  mkdir -p "$PLUGIN_DIR"
  install -m 755 "$bin/cmd" "$PLUGIN_DIR/docker-compose"
  rm -rf "$bin"
fi
say "$(docker compose version)"

echo "unix://$SOCKET"
