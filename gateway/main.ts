// `npm run gateway`: the standalone gateway, the package's first user: the settings from the
// environment (see settings/), the package's plugin mounted at the root of a Fastify app with its
// probes, listen, the start log, and a graceful shutdown (standalone.ts).
// First: an unsupported Node.js is told what it needs before anything starts.
import '../common/node-check.ts';
import { startTracing } from '../common/tracing.ts';
import { gatewayServer } from './app.ts';
import { logDestination } from './http/logging.ts';
import { temporalMcp } from './index.ts';
import { enableTracing } from './shared/tracing.ts';
import { logStart, shutdownOn, startupSettings } from './standalone.ts';

const { config, serverSecret, logFormat } = await startupSettings();
// Before the plugin makes its Temporal client: its tracing interceptor is added only when tracing is on.
const tracing = await startTracing('mcp-gateway');
if (tracing) enableTracing({ principalAttribute: config.tracePrincipal });
// JSON lines are written off the request path (pino flushes what is pending when the process
// exits); on a terminal (or LOG_FORMAT=pretty), one readable line per request.
const logger = { level: process.env.LOG_LEVEL || 'info', stream: logDestination(logFormat) };
const app = gatewayServer(config, logger);
await app.register(temporalMcp, {
  settings: config,
  serverSecret: serverSecret.secret.toString('utf8'),
  probes: true,
});

const address = await app.listen({ host: config.host, port: config.port });
// The bound host, not Fastify's first address (127.0.0.1 even when listening on 0.0.0.0).
const bound = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${new URL(address).port}`;
logStart(app, { config, bound, secretSource: serverSecret.source, tracing });
shutdownOn(app, tracing);
