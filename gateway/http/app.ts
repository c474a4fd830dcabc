// The Fastify app, built apart from listen() so tests drive it in-process or on a free port.
import { localhostHostValidation, localhostOriginValidation } from '@modelcontextprotocol/fastify';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { GatewayConfig } from '../config.ts';
import type { MiningBackend } from '../temporal/mining-backend.ts';
import { withWaitMetrics } from '../temporal/wait-metrics.ts';
import { healthRoutes } from './health.ts';
import { bindTaskFromBody, childLoggerFactory, loggerOptions } from './logging.ts';
import { mcpRoute } from './mcp-route.ts';
import { metricsRoute } from './metrics-route.ts';

export interface AppDeps {
  backend: MiningBackend;
  logger?: FastifyServerOptions['logger'];
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export function buildApp(config: GatewayConfig, deps: AppDeps): FastifyInstance {
  const app = Fastify({ logger: loggerOptions(deps.logger ?? false), childLoggerFactory });
  if (LOOPBACK.has(config.host)) {
    // DNS-rebinding protection for a local server: only loopback Host and Origin values.
    app.addHook('onRequest', localhostHostValidation());
    app.addHook('onRequest', localhostOriginValidation());
  }
  app.addHook('preHandler', bindTaskFromBody);
  app.register(healthRoutes, { backend: deps.backend, readyTimeoutMs: config.readyTimeoutMs });
  app.register(metricsRoute);
  app.register(mcpRoute, {
    backend: withWaitMetrics(deps.backend),
    waitBudgetMs: config.waitBudgetMs,
    timing: { ttlMs: config.taskTtlMs, pollIntervalMs: config.pollIntervalMs },
    approval: config.approval,
    authTokens: config.authTokens,
    bodyLimitBytes: config.bodyLimitBytes,
    pollMinIntervalMs: config.pollMinIntervalMs,
    onError: (error) => app.log.warn({ err: error }, 'mcp request error'),
  });
  return app;
}
