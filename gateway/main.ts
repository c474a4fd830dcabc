// `npm run gateway`: the MCP gateway process. Configuration from the environment (see config.ts).
import { setTimeout as delay } from 'node:timers/promises';
import { backendOptions, gatewayConfig } from './config.ts';
import { buildApp } from './http/app.ts';
import { logDestination, logFormat } from './http/logging.ts';
import { loadServerSecret } from './server-secret.ts';
import { createTemporalClient, TemporalBackend } from './temporal/backend.ts';

/** Settings that must be right before anything listens: a bad one stops the start with its reason. */
async function startupSettings() {
  try {
    return {
      config: await gatewayConfig(),
      serverSecret: loadServerSecret(),
      logFormat: logFormat(process.env, Boolean(process.stdout.isTTY)),
    };
  } catch (err) {
    console.error(`gateway: cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
}

const { config, serverSecret, logFormat: format } = await startupSettings();
const client = createTemporalClient(config.temporal, config.temporalTimeoutMs);
const backend = new TemporalBackend(client, backendOptions(config, serverSecret.secret));
// JSON lines are written off the request path (pino flushes what is pending when the process
// exits); on a terminal (or LOG_FORMAT=pretty), one readable line per request.
const stream = logDestination(format);
const app = buildApp(config, { backend, logger: { level: process.env.LOG_LEVEL || 'info', stream } });

const address = await app.listen({ host: config.host, port: config.port });
app.log.info(
  `gateway: MCP on ${address}/mcp; Temporal ${config.temporal.address}, namespace "${config.temporal.namespace}", ` +
    `task queue "${config.temporal.taskQueue}"; wait budget ${config.waitBudgetMs} ms`,
);
app.log.info(
  `gateway: tools from ${config.toolsFile ?? 'the built-in catalog'}: ${config.tools.map((t) => t.name).join(', ')}`,
);
app.log.info(
  `gateway: ${
    config.authTokens.size > 0
      ? `bearer tokens for ${config.authTokens.size} principal(s)`
      : 'no authentication (loopback only; every caller is "anonymous")'
  }; server secret from ${serverSecret.source}; at most ${config.maxRunningTasks || 'unlimited'} running task(s) per principal`,
);

// SIGINT/SIGTERM: stop taking requests, finish the ones in flight, close the Temporal connection
// (giving it at most 2 s: an unreachable Temporal must not hold the exit up), then exit.
let stopping = false;
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info(`gateway: ${signal}, shutting down`);
  try {
    await app.close();
    await Promise.race([client.connection.close(), delay(2_000, undefined, { ref: false })]);
    process.exit(0);
  } catch (err) {
    app.log.error(err, 'gateway: unclean shutdown');
    process.exit(1);
  }
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
