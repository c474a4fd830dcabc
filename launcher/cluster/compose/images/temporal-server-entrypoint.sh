#!/bin/sh
# Entrypoint of the locally built temporalio/server:1.32.2 substitute
# (scripts/compose-cluster-images.sh): the official image's contract as docker-compose.yml uses it.
# The server's config is rendered from the environment into config/docker.yaml, PostgreSQL only
# (DB=postgres12 or postgres12_pgx): POSTGRES_SEEDS, DB_PORT, POSTGRES_USER, POSTGRES_PWD, DBNAME,
# VISIBILITY_DBNAME, NUM_HISTORY_SHARDS, LOG_LEVEL, DYNAMIC_CONFIG_FILE_PATH, BIND_ON_IP (default:
# this container's address, which the other services reach it at); SERVICES (comma or colon
# separated) names the services this container runs, all four when unset.
set -eu
db=${DB:-}
case "$db" in
  postgres12 | postgres12_pgx) ;;
  *)
    echo "temporal-server: this image supports DB=postgres12 (or postgres12_pgx), not '${db}'" >&2
    exit 1
    ;;
esac
: "${BIND_ON_IP:=$(getent hosts "$(hostname)" | awk '{ print $1; exit }')}"
broadcast=${TEMPORAL_BROADCAST_ADDRESS:-}
if [ "$BIND_ON_IP" = 0.0.0.0 ] && [ -z "$broadcast" ]; then
  broadcast=$(getent hosts "$(hostname)" | awk '{ print $1; exit }')
fi

store() {
  cat <<YAML
      sql:
        pluginName: "$db"
        databaseName: "$1"
        connectAddr: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}:${DB_PORT:-5432}"
        connectProtocol: tcp
        user: "${POSTGRES_USER:-}"
        password: "${POSTGRES_PWD:-}"
        maxConns: $2
        maxIdleConns: $2
        maxConnLifetime: 1h
YAML
}

service() {
  cat <<YAML
  $1:
    rpc:
      grpcPort: $2
      membershipPort: $3
      bindOnIP: "$BIND_ON_IP"
YAML
}

mkdir -p config
{
  cat <<YAML
# Rendered by the image's entrypoint at every start; edits are overwritten.
log:
  stdout: true
  level: ${LOG_LEVEL:-info}
persistence:
  numHistoryShards: ${NUM_HISTORY_SHARDS:-4}
  defaultStore: default
  visibilityStore: visibility
  datastores:
    default:
$(store "${DBNAME:-temporal}" 20)
    visibility:
$(store "${VISIBILITY_DBNAME:-temporal_visibility}" 10)
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "$broadcast"
services:
$(service frontend 7233 6933)
      httpPort: 7243
$(service matching 7235 6935)
$(service history 7234 6934)
$(service worker 7239 6939)
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:7233
      httpAddress: 127.0.0.1:7243
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "${DYNAMIC_CONFIG_FILE_PATH:-/etc/temporal/config/dynamicconfig/docker.yaml}"
  pollInterval: 60s
YAML
} >config/docker.yaml

set --
for name in $(echo "${SERVICES:-}" | tr ',:' '  '); do set -- "$@" --service "$name"; done
exec temporal-server --env docker start "$@"
