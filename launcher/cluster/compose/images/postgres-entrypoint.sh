#!/bin/sh
# Entrypoint of the locally built postgres:15 substitute (scripts/compose-cluster-images.sh): the
# official image's contract as docker-compose.yml uses it. POSTGRES_USER (default postgres) is the
# superuser, with POSTGRES_PASSWORD over TCP (scram-sha-256); the database POSTGRES_DB (default the
# user's name) is created on the first start; the data lives in PGDATA, a volume.
set -eu
PGDATA=${PGDATA:-/var/lib/postgresql/data}
export PGDATA
user=${POSTGRES_USER:-postgres}

if [ "$(id -u)" = 0 ]; then
  # A fresh named volume is root's: the server runs as postgres.
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec runuser -u postgres -- "$0" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres: POSTGRES_PASSWORD is required" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  db=${POSTGRES_DB:-$user}
  if [ "$db" != postgres ]; then
    pg_ctl -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 --username "$user" --dbname postgres -c "CREATE DATABASE \"$db\"" >/dev/null
    pg_ctl -m fast -w stop >/dev/null
  fi
  echo "postgres: initialised $PGDATA (superuser $user, database $db)"
fi
exec "$@"
