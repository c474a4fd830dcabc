// The Fastify app, built apart from listen() so tests drive it in-process or on a free port.
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { GatewayConfig } from '../config.ts';
import { Catalog } from '../mcp/catalog.ts';
import { McpServers } from '../mcp/server.ts';
import { TaskSubscriptions } from '../mcp/task-subscriptions.ts';
import type { TemporalBackend } from '../temporal/backend.ts';
import { healthRoutes } from './health.ts';
import { bindTaskFromBody, childLoggerFactory, loggerOptions } from './logging.ts';
import { isLoopback, loopbackHostnames } from './loopback.ts';
import { mcpRoute } from './mcp-route.ts';
import { metricsRoute } from './metrics-route.ts';
import { OAuthResourceServer } from './oauth.ts';
import { protectedResourceRoutes } from './protected-resource.ts';
import { ToolScopes } from './tool-scopes.ts';

export interface AppDeps {
  backend: TemporalBackend;
  logger?: FastifyServerOptions['logger'];
}

export function buildApp(config: GatewayConfig, deps: AppDeps): FastifyInstance {
  const app = Fastify({ logger: loggerOptions(deps.logger ?? false), childLoggerFactory });
  if (isLoopback(config.host)) {
    // DNS-rebinding protection for a local server: only loopback Host and Origin values.
    const hostnames = loopbackHostnames(config.host);
    app.addHook('onRequest', hostHeaderValidation(hostnames));
    app.addHook('onRequest', originValidation(hostnames));
  }
  app.addHook('preHandler', bindTaskFromBody);
  app.register(healthRoutes, { backend: deps.backend, readyTimeoutMs: config.readyTimeoutMs });
  app.register(metricsRoute);
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
  app.register(mcpRoute, {
    servers: new McpServers({
      backend: deps.backend,
      catalog,
      timing: { ttlMs: config.taskTtlMs, pollIntervalMs: config.pollIntervalMs },
    }),
    subscriptions: new TaskSubscriptions({
      backend: deps.backend,
      catalog,
      timing: { ttlMs: config.taskTtlMs, pollIntervalMs: config.pollIntervalMs },
      limits: config.listen,
    }),
    isPollTool: (name) => catalog.isPollTool(name),
    authTokens: config.authTokens,
    ...(oauth ? { oauth, toolScopes } : {}),
    bodyLimitBytes: config.bodyLimitBytes,
    pollMinIntervalMs: config.pollMinIntervalMs,
    onError: (error) => app.log.warn({ err: error }, 'mcp request error'),
  });
  return app;
}
