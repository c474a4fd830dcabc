// The Fastify app, built apart from listen() so tests drive it in-process (inject) or on a free
// port: POST /mcp (http/mcp-route.ts), GET /healthz (the process is up), GET /readyz (Temporal
// answers within a bounded time, 503 if not), GET /metrics (Prometheus text, not request-logged),
// with OAuth the RFC 9728 metadata, and with MCP_CODEC_SERVER the codec server. Each piece gets the
// settings it uses, once.
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { openArtifactStore } from '../common/artifact-store-settings.ts';
import type { Authentication } from './http/bearer-auth.ts';
import { codecEndpoint } from './http/codec-endpoint.ts';
import { childLoggerFactory, loggerOptions } from './http/logging.ts';
import { isLoopback, loopbackHostnames } from './http/loopback.ts';
import { mcpRoute } from './http/mcp-route.ts';
import { OAuthResourceServer, protectedResourceRoutes, ToolScopes } from './http/oauth.ts';
import { Readiness } from './http/readiness.ts';
import { Catalog } from './mcp/catalog.ts';
import { McpHandler } from './mcp/handler.ts';
import { pacedIntervals } from './mcp/poll-pacing.ts';
import { ReadBudget } from './mcp/read-budget.ts';
import type { GatewaySettings } from './settings/index.ts';
import { renderMetrics } from './shared/metrics.ts';
import type { TemporalBackend } from './temporal/backend.ts';

export interface AppDeps {
  backend: TemporalBackend;
  logger?: FastifyServerOptions['logger'];
}

export function buildApp(settings: GatewaySettings, deps: AppDeps): FastifyInstance {
  const app = Fastify({
    logger: loggerOptions(deps.logger ?? false),
    childLoggerFactory,
    // A body trickled byte by byte must not hold a socket for ever. This bounds receiving the
    // request only: a tool call's wait and a stream's life are the answer, and are not cut.
    requestTimeout: settings.requestTimeoutMs,
    // Node takes the bound only when the server is made, and looks for late requests on an interval
    // (30 s by default): the bound holds within a quarter of itself.
    http: {
      requestTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(250, Math.floor(settings.requestTimeoutMs / 4)),
    },
  });
  app.server.maxConnections = settings.maxConnections;
  // Who a request is from (http/bearer-auth.ts), on every request object from the start.
  app.decorateRequest('identity', undefined);
  if (isLoopback(settings.host)) {
    // DNS-rebinding protection for a local server: only loopback Host and Origin values.
    const hostnames = loopbackHostnames(settings.host);
    app.addHook('onRequest', hostHeaderValidation(hostnames));
    app.addHook('onRequest', originValidation(hostnames));
  }
  probes(app, settings, deps.backend);
  const oauth = settings.oauth ? new OAuthResourceServer(settings.oauth) : undefined;
  const auth: Authentication = {
    tokens: settings.authTokens,
    staticScopes: settings.staticScopes,
    ...(oauth ? { oauth } : {}),
  };
  const catalog = new Catalog(settings.tools);
  const toolScopes = new ToolScopes(catalog, settings.oauth?.requiredScopes ?? []);
  if (oauth) resourceMetadata(app, oauth, toolScopes);
  if (settings.codec && settings.codecServer) {
    // It decrypts every payload of the namespace: with callers that authenticate, only the named
    // operators, never every principal with a token for /mcp.
    if ((settings.authTokens.size > 0 || oauth) && !settings.codecServer.principals?.length) {
      throw new Error(
        'MCP_CODEC_SERVER=true on a gateway that authenticates needs MCP_CODEC_PRINCIPALS: the principals ' +
          '(operators) who may decrypt payloads through /codec',
      );
    }
    app.register(codecEndpoint, { ...settings.codecServer, codec: settings.codec, auth });
  }
  mcp(app, settings, { backend: deps.backend, catalog, auth, ...(oauth ? { toolScopes } : {}) });
  return app;
}

/** /healthz, /readyz and /metrics: for probes and scrapers, never authenticated. */
function probes(app: FastifyInstance, settings: GatewaySettings, backend: TemporalBackend): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  const readiness = new Readiness({
    ping: (timeoutMs) => backend.calls.ping(timeoutMs),
    timeoutMs: settings.readyTimeoutMs,
    onUnready: (reason) => app.log.warn(`gateway: not ready: Temporal did not answer: ${reason}`),
  });
  app.get('/readyz', async (_request, reply) => {
    if (await readiness.check()) return { status: 'ready', temporal: 'reachable' };
    return reply.code(503).send({ status: 'unavailable', temporal: 'unreachable' });
  });
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    const { contentType, body } = await renderMetrics();
    return reply.type(contentType).send(body);
  });
}

/** RFC 9728 metadata; discovery and keys fetched ahead of the first request (retried on requests). */
function resourceMetadata(app: FastifyInstance, oauth: OAuthResourceServer, toolScopes: ToolScopes): void {
  app.register(protectedResourceRoutes, { oauth, scopesSupported: toolScopes.supported });
  app.addHook('onReady', async () => {
    const { issuer, audience } = oauth.settings;
    oauth.verifier.warmUp().then(
      () => app.log.info(`gateway: OAuth access tokens from ${issuer} for ${audience}`),
      (err) => app.log.warn(`gateway: OAuth issuer ${issuer} not usable yet: ${(err as Error).message}`),
    );
  });
}

/** POST /mcp: the MCP layer over the catalog, behind the route's admission. */
function mcp(
  app: FastifyInstance,
  settings: GatewaySettings,
  parts: { backend: TemporalBackend; catalog: Catalog; auth: Authentication; toolScopes?: ToolScopes },
): void {
  const { backend, catalog, auth, toolScopes } = parts;
  const onError = (error: Error) => app.log.warn({ err: error }, 'mcp request error');
  const handler = new McpHandler({
    backend,
    catalog,
    timing: {
      ttlMs: settings.taskTtlMs,
      pollIntervalFor: pacedIntervals(settings.pollPacing),
    },
    listen: settings.listen,
    requestStateTtlSeconds: settings.inputStateTtlSeconds,
    clientWaitBudgets: settings.clientWaitBudgets,
    artifacts: {
      store: openArtifactStore(settings.artifacts.store),
      readMaxBytes: settings.artifacts.readMaxBytes,
      budget: new ReadBudget(settings.artifacts.readLimits),
    },
    onError,
  });
  app.register(mcpRoute, {
    mcp: handler,
    auth,
    ...(toolScopes ? { toolScopes } : {}),
    bodyLimitBytes: settings.bodyLimitBytes,
    ...(settings.pollMinIntervalMs
      ? {
          pollLimit: {
            minIntervalMs: settings.pollMinIntervalMs,
            isPollTool: (name: string) => catalog.isPollTool(name),
            issuedTo: (taskId: string, principal: string) => backend.issuedTo(taskId, principal),
          },
        }
      : {}),
    paramHeaders: catalog.paramHeaders,
    onError,
  });
}
