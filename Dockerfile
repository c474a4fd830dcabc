# syntax=docker/dockerfile:1
# One image for the gateway (default command) and the worker (compose overrides the command).
# Node 26 is the current LTS line; override with --build-arg NODE_VERSION=<major>.
ARG NODE_VERSION=26

# Build stage: all dependencies, the prebuilt workflow bundle (workers start without webpack) and
# the native miner core (the C compiler stays in this stage).
FROM node:${NODE_VERSION}-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY lib ./lib
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY scripts ./scripts
RUN npm run build:workflows && npm run build:native

# Runtime stage: production dependencies only (tsx among them: the processes run TypeScript
# through it), the sources the processes load, and the bundle from the build stage.
FROM node:${NODE_VERSION}-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY lib ./lib
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY gateway ./gateway
COPY scripts/worker-healthcheck.ts ./scripts/worker-healthcheck.ts
COPY --from=build /app/dist/workflow-bundle.js ./dist/workflow-bundle.js
COPY --from=build /app/dist/native ./dist/native
ENV WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
# The files stay root-owned and read-only to the process.
USER node
EXPOSE 3000
# `npm run gateway` without npm in between: node is the process that receives the container's
# SIGTERM (npm would not pass it on through its shell), so shutdown stays graceful.
CMD ["node", "--import", "tsx", "gateway/main.ts"]
