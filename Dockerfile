# syntax=docker/dockerfile:1
# One image for the gateway (default command) and the worker (compose overrides the command).
# Node 26 is the current LTS line (CI tests 24 and 26, `engines` allows both); override with
# --build-arg NODE_VERSION=<major>.
ARG NODE_VERSION=26

# Build stage: all dependencies, the prebuilt workflow bundle (workers start without webpack), the
# compiled gateway (plain node, no TypeScript loader) with the built-in catalog compiled beside it,
# and the native miner core (the C compiler stays in this stage).
FROM node:${NODE_VERSION}-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY common ./common
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY gateway ./gateway
COPY catalog ./catalog
COPY scripts ./scripts
# The native core is optional (no headers, no compiler, or a CPU other than x64: the miner uses
# its WebAssembly core), so its folder may stay empty; the runtime stage copies it either way.
RUN npm run build:workflows && npm run build:gateway && npm run build:native && mkdir -p dist/native

# Runtime stage: the lockfile's packages, dev ones included: package.json's dependencies are the
# published plugin's alone, and the app needs more (the worker and tsx, which runs its TypeScript;
# the AWS SDK and OpenTelemetry, optional peers of the package), the sources the worker loads, and
# the build stage's outputs.
FROM node:${NODE_VERSION}-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --include=dev --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY common ./common
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY scripts/worker-healthcheck.ts ./scripts/worker-healthcheck.ts
COPY --from=build /app/dist/workflow-bundle.js ./dist/workflow-bundle.js
COPY --from=build /app/dist/native ./dist/native
COPY --from=build /app/dist/gateway.mjs ./dist/gateway.mjs
# The built-in catalog (MCP_TOOLS_FILE unset), which the compiled gateway loads from beside itself.
COPY --from=build /app/dist/built-in-catalog.mjs ./dist/built-in-catalog.mjs
ENV WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
# Logs are JSON lines for the log collector, even when the container runs with a terminal (-t).
ENV LOG_FORMAT=json
# The artifact folder the gateway and the workers share through a volume (docker-compose.yml): an
# empty named volume takes this folder's owner, so the image user can write to it.
RUN mkdir -p /artifacts && chown node:node /artifacts
# The files stay root-owned and read-only to the process.
USER node
EXPOSE 3000
# The compiled gateway with its production flags (gateway/runtime-flags.ts), node itself as the
# process: it receives the container's SIGTERM (npm would not pass it on), so shutdown is graceful.
CMD ["node", "--memory-saver-mode", "--min-semi-space-size=4", "--max-semi-space-size=4", "dist/gateway.mjs"]
