// The standalone gateway's Fastify app, built apart from listen() so tests drive it in-process
// (inject) or on a free port: the server options the settings imply (logger, request timeouts,
// connection cap) and the gateway's routes mounted at the root, probes included (routes.ts).
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { childLoggerFactory, loggerOptions } from './http/logging.ts';
import { gatewayRoutes } from './routes.ts';
import type { GatewaySettings } from './settings/index.ts';
import type { TemporalBackend } from './temporal/backend.ts';

export interface AppDeps {
  backend: TemporalBackend;
  logger?: FastifyServerOptions['logger'];
}

/** A Fastify instance as the standalone gateway makes it: its logger, timeouts and connection cap. */
export function gatewayServer(settings: GatewaySettings, logger: AppDeps['logger']): FastifyInstance {
  const app = Fastify({
    logger: loggerOptions(logger ?? false),
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
  return app;
}

/** The gateway over a backend the caller made (tests give theirs). */
export function buildApp(settings: GatewaySettings, deps: AppDeps): FastifyInstance {
  const app = gatewayServer(settings, deps.logger);
  app.register(gatewayRoutes, { settings, backend: deps.backend, probes: true });
  return app;
}
