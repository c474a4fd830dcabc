// The Fastify app, built apart from listen() so tests drive it in-process or on a free port:
// POST /mcp (mcp-endpoint.ts), GET /healthz (the process is up), GET /readyz (Temporal answers
// within a bounded time, 503 if not), GET /metrics (Prometheus text, not request-logged), with
// OAuth the RFC 9728 metadata, and with MCP_CODEC_SERVER the codec server (codec-endpoint.ts).
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { type ArtifactStoreSettings, openArtifactStore } from '../../common/artifact-store.ts';
import type { EncryptionCodec } from '../../common/payload-codec.ts';
import { Catalog, type CatalogTool } from '../mcp/catalog.ts';
import { type PollPacing, pollIntervalMs, runPace } from '../mcp/poll-pacing.ts';
import type { SubscriptionLimits } from '../mcp/push.ts';
import { McpServers } from '../mcp/server.ts';
import type { OAuthSettings } from '../settings/oauth.ts';
import { renderMetrics } from '../shared/metrics.ts';
import type { TemporalBackend } from '../temporal/backend.ts';
import { type CodecServerSettings, codecEndpoint } from './codec-endpoint.ts';
import { loggerOptions } from './logging.ts';
import { isLoopback, loopbackHostnames } from './loopback.ts';
import { type AuthTokens, childLoggerFactory, mcpEndpoint } from './mcp-endpoint.ts';
import { OAuthResourceServer, protectedResourceRoutes, ToolScopes } from './oauth.ts';
import { Readiness } from './readiness.ts';

/** What the app needs of the gateway's settings (config.ts). */
export interface AppSettings {
  host: string;
  /** Longest /readyz waits for Temporal before answering 503. */
  readyTimeoutMs: number;
  /** ttlMs advertised on tasks: how long a finished task stays retrievable. */
  taskTtlMs: number;
  /** The steady poll interval (MCP_POLL_INTERVAL_MS): the gateway's own watch of a pushed task. */
  pollIntervalMs: number;
  /** How the interval advised to clients (pollIntervalMs / poll_after_seconds) follows the run. */
  pollPacing: PollPacing;
  /** principal → bearer token; empty: no auth, loopback only. */
  authTokens: AuthTokens;
  /** Scopes of static principals (checked like a token's); one not listed holds every scope. */
  staticScopes?: ReadonlyMap<string, readonly string[]>;
  /** OAuth access tokens from an identity provider, beside the static tokens. */
  oauth?: OAuthSettings;
  /** Polls of one task closer together than this are refused (429); 0: no poll rate limit. */
  pollMinIntervalMs: number;
  /** Largest request body accepted on /mcp (413 above it). */
  bodyLimitBytes: number;
  /** Longest a client may take to send a whole request, headers and body (408 after it). */
  requestTimeoutMs: number;
  /** Open connections at most; more are refused at once. */
  maxConnections: number;
  /** Bounds of pushed task status (subscriptions/listen with taskIds). */
  listen: SubscriptionLimits;
  /** How long an input_required answer's requestState stays valid. */
  inputStateTtlSeconds: number;
  /** Wait budgets per MCP client (lower-cased clientInfo.name); each tool's budget caps them. */
  clientWaitBudgets?: ReadonlyMap<string, number>;
  /** The tools served. */
  tools: CatalogTool[];
  /** The payload codec of the Temporal client (MCP_CODEC_KEYS); absent: payloads in clear. */
  codec?: EncryptionCodec;
  /** The codec server for the Web UI (MCP_CODEC_SERVER=true); absent: /codec/* is 404. */
  codecServer?: CodecServerSettings;
  /** The artifact store workers write large outputs to, and the largest one resources/read serves. */
  artifacts: { store: ArtifactStoreSettings; readMaxBytes: number };
}

export interface AppDeps {
  backend: TemporalBackend;
  logger?: FastifyServerOptions['logger'];
}

export function buildApp(config: AppSettings, deps: AppDeps): FastifyInstance {
  const app = Fastify({
    logger: loggerOptions(deps.logger ?? false),
    childLoggerFactory,
    // A body trickled byte by byte must not hold a socket for ever. This bounds receiving the
    // request only: a tool call's wait and a stream's life are the answer, and are not cut.
    requestTimeout: config.requestTimeoutMs,
    // Node takes the bound only when the server is made, and looks for late requests on an interval
    // (30 s by default): the bound holds within a quarter of itself.
    http: {
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(250, Math.floor(config.requestTimeoutMs / 4)),
    },
  });
  app.server.maxConnections = config.maxConnections;
  if (isLoopback(config.host)) {
    // DNS-rebinding protection for a local server: only loopback Host and Origin values.
    const hostnames = loopbackHostnames(config.host);
    app.addHook('onRequest', hostHeaderValidation(hostnames));
    app.addHook('onRequest', originValidation(hostnames));
  }

  app.get('/healthz', async () => ({ status: 'ok' }));
  const readiness = new Readiness({
    ping: (timeoutMs) => deps.backend.ping(timeoutMs),
    timeoutMs: config.readyTimeoutMs,
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

  const catalog = new Catalog(config.tools);
  const oauth = config.oauth ? new OAuthResourceServer(config.oauth) : undefined;
  const toolScopes = new ToolScopes(config.tools, config.oauth?.requiredScopes ?? []);
  if (oauth) {
    app.register(protectedResourceRoutes, { oauth, scopesSupported: toolScopes.supported });
    // Discovery and keys ahead of the first request; a failure is retried on the requests.
    app.addHook('onReady', async () => {
      const { issuer, audience } = oauth.settings;
      oauth.verifier.warmUp().then(
        () => app.log.info(`gateway: OAuth access tokens from ${issuer} for ${audience}`),
        (err) => app.log.warn(`gateway: OAuth issuer ${issuer} not usable yet: ${(err as Error).message}`),
      );
    });
  }
  if (config.codec && config.codecServer) {
    // It decrypts every payload of the namespace: with callers that authenticate, only the named
    // operators, never every principal with a token for /mcp.
    if ((config.authTokens.size > 0 || oauth) && !config.codecServer.principals?.length) {
      throw new Error(
        'MCP_CODEC_SERVER=true on a gateway that authenticates needs MCP_CODEC_PRINCIPALS: the principals ' +
          '(operators) who may decrypt payloads through /codec',
      );
    }
    app.register(codecEndpoint, {
      ...config.codecServer,
      codec: config.codec,
      authTokens: config.authTokens,
      ...(config.staticScopes ? { staticScopes: config.staticScopes } : {}),
      ...(oauth ? { oauth } : {}),
    });
  }
  const onError = (error: Error) => app.log.warn({ err: error }, 'mcp request error');
  app.register(mcpEndpoint, {
    servers: new McpServers({
      backend: deps.backend,
      catalog,
      timing: {
        ttlMs: config.taskTtlMs,
        watchIntervalMs: config.pollIntervalMs,
        pollIntervalFor: (view) =>
          pollIntervalMs(config.pollPacing, runPace(view, Date.now()), Math.random()),
      },
      listen: config.listen,
      requestStateTtlSeconds: config.inputStateTtlSeconds,
      ...(config.clientWaitBudgets ? { clientWaitBudgets: config.clientWaitBudgets } : {}),
      artifacts: {
        store: openArtifactStore(config.artifacts.store),
        readMaxBytes: config.artifacts.readMaxBytes,
      },
      onError,
    }),
    isPollTool: (name) => catalog.isPollTool(name),
    issuedTo: (taskId, principal) => deps.backend.issuedTo(taskId, principal),
    catalog,
    authTokens: config.authTokens,
    ...(config.staticScopes ? { staticScopes: config.staticScopes } : {}),
    ...(oauth ? { oauth, toolScopes } : {}),
    bodyLimitBytes: config.bodyLimitBytes,
    pollMinIntervalMs: config.pollMinIntervalMs,
    onError,
  });
  return app;
}
