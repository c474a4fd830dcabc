# The images the compose profiles `cluster` and `tracing` name, built locally like the rest of
# scripts/compose-images.sh (which sources this file and calls cluster_images): on its Debian
# bookworm base, from Debian's packages and from `go install` builds, under the names
# docker-compose.yml uses. Each mirrors the official image's contract as the compose file uses it
# (environment, paths, user, entrypoint); docs/deployment.md says where they differ.
#   postgres:15                    Debian's postgresql-15; entrypoint launcher/cluster/compose/images/
#   haproxy:2.6                    Debian's haproxy (2.6)
#   temporalio/server:1.32.2       the server scripts/install-temporal-server.sh builds, the config
#                                  rendered from the environment; the temporal CLI for health checks
#   temporalio/admin-tools:1.32.2  the server's SQL tool as temporal-sql-tool, and the temporal CLI
#   temporalio/ui:2.42.1           the UI server of launcher/cluster/ui (the same ui-server module)
#   jaegertracing/jaeger:2.13.0    the all-in-one Jaeger v1.76.0 scripts/install-jaeger.sh builds
IMAGES_DIR=launcher/cluster/compose/images

# The image reference docker-compose.yml gives for `repository` (the first one).
compose_image() {
  sed -n "s|^.*[ &a-z-]\(${1}:[^ \"]*\)\$|\1|p" docker-compose.yml | head -n1
}

# Tags `image` as `name` and as the fully qualified name a Docker client asks for.
tag_as() {
  local full=docker.io/library/$2
  [[ $2 == */* ]] && full=docker.io/$2
  "$ENGINE" tag "$1" "$2" "$full"
}

# build_image NAME CONTEXT: the Containerfile in CONTEXT, built and tagged as NAME.
build_image() {
  local started=$SECONDS
  "$ENGINE" build -q -t "$1" "$2" >/dev/null
  tag_as "$1" "$1"
  say "$1 built in $((SECONDS - started)) s"
}

go_bin() {
  local gobin
  gobin=$(go env GOBIN)
  [ -n "$gobin" ] || gobin="$(go env GOPATH | cut -d: -f1)/bin"
  echo "$gobin"
}

postgres_image() {
  local name dir=$work/postgres
  name=$(compose_image postgres)
  have "$name" && { tag_as "$name" "$name"; return; }
  local major=${name#*:}
  mkdir -p "$dir"
  cp "$IMAGES_DIR/postgres-entrypoint.sh" "$dir/"
  say "building $name from Debian's postgresql-$major"
  cat >"$dir/Containerfile" <<CF
FROM $BASE_IMAGE
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-$major \\
 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/$major/bin:\$PATH PGDATA=/var/lib/postgresql/data
COPY --chmod=755 postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres", "-c", "listen_addresses=*"]
CF
  build_image "$name" "$dir"
}

haproxy_image() {
  local name dir=$work/haproxy
  name=$(compose_image haproxy)
  have "$name" && { tag_as "$name" "$name"; return; }
  mkdir -p "$dir"
  say "building $name from Debian's haproxy"
  cat >"$dir/Containerfile" <<CF
FROM $BASE_IMAGE
RUN apt-get update && apt-get install -y --no-install-recommends haproxy \\
 && rm -rf /var/lib/apt/lists/* && mkdir -p /usr/local/etc/haproxy
USER haproxy
STOPSIGNAL SIGUSR1
ENTRYPOINT ["haproxy", "-W", "-db"]
CMD ["-f", "/usr/local/etc/haproxy/haproxy.cfg"]
CF
  build_image "$name" "$dir"
}

# The server of release $2, its SQL tool and the UI server, built by `go install` when missing
# (the server and the tool in the release's folder under the Go bin folder).
temporal_go_binaries() {
  bash scripts/install-temporal-server.sh >&2
  local gobin
  gobin=$(go_bin)
  cp "$gobin/temporal-server-v$2/server" "$1/temporal-server"
  cp "$gobin/temporal-server-v$2/sql" "$1/temporal-sql-tool"
  cp "$gobin/cluster-ui" "$1/cluster-ui"
  cp "$(bash scripts/install-temporal-cli.sh | tail -n1)" "$1/temporal"
}

temporal_cluster_images() {
  local server admin ui dir=$work/temporal-cluster
  server=$(compose_image temporalio/server)
  admin=$(compose_image temporalio/admin-tools)
  ui=$(compose_image temporalio/ui)
  if have "$server" && have "$admin" && have "$ui"; then
    for name in "$server" "$admin" "$ui"; do tag_as "$name" "$name"; done
    return
  fi
  mkdir -p "$dir"
  temporal_go_binaries "$dir" "${server#*:}"
  cp "$IMAGES_DIR"/temporal-*-entrypoint.sh "$dir/"
  cp "$CA_BUNDLE" "$dir/ca-certificates.crt"
  say "building $server, $admin and $ui from the go install builds"
  cat >"$dir/Containerfile" <<CF
FROM $BASE_IMAGE
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --chmod=755 temporal /usr/local/bin/temporal
RUN useradd --uid 1000 --user-group --shell /bin/sh --create-home temporal \\
 && mkdir -p /etc/temporal/config && chown -R temporal:temporal /etc/temporal
WORKDIR /etc/temporal
CF
  "$ENGINE" build -q -t localhost/compose-base/temporal-tools "$dir" >/dev/null
  image_from "$dir" "$server" 'COPY --chmod=755 temporal-server /usr/local/bin/temporal-server
COPY --chmod=755 temporal-server-entrypoint.sh /etc/temporal/entrypoint.sh
USER temporal
CMD ["/etc/temporal/entrypoint.sh"]'
  image_from "$dir" "$admin" 'COPY --chmod=755 temporal-sql-tool /usr/local/bin/temporal-sql-tool
USER temporal
CMD ["sh"]'
  image_from "$dir" "$ui" 'COPY --chmod=755 cluster-ui /usr/local/bin/cluster-ui
COPY --chmod=755 temporal-ui-entrypoint.sh /usr/local/bin/temporal-ui-entrypoint.sh
USER temporal
EXPOSE 8080
ENTRYPOINT ["temporal-ui-entrypoint.sh"]'
}

# image_from CONTEXT NAME LINES: NAME, from the shared tools layer plus LINES.
image_from() {
  printf 'FROM localhost/compose-base/temporal-tools\n%s\n' "$3" >"$1/Containerfile.one"
  local started=$SECONDS
  "$ENGINE" build -q -f "$1/Containerfile.one" -t "$2" "$1" >/dev/null
  tag_as "$2" "$2"
  say "$2 built in $((SECONDS - started)) s"
}

jaeger_image() {
  local name dir=$work/jaeger
  name=$(compose_image jaegertracing/jaeger)
  have "$name" && { tag_as "$name" "$name"; return; }
  mkdir -p "$dir"
  cp "$(bash scripts/install-jaeger.sh | tail -n1)" "$dir/jaeger"
  say "building $name from the Jaeger build"
  cat >"$dir/Containerfile" <<CF
FROM $BASE_IMAGE
COPY --chmod=755 jaeger /usr/local/bin/jaeger
ENV JAEGER_LISTEN_HOST=0.0.0.0
USER 10001
EXPOSE 4317 4318 16686
ENTRYPOINT ["jaeger"]
CF
  build_image "$name" "$dir"
}

cluster_images() {
  postgres_image
  haproxy_image
  temporal_cluster_images
  jaeger_image
}
