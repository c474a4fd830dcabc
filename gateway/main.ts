// `npm run gateway`: the MCP gateway process. Configuration from the environment (see settings/).
import { setTimeout as delay } from 'node:timers/promises';
import { describeCodec } from '../common/codec-settings.ts';
import { startTracing, traceDestination } from '../common/tracing.ts';
import { buildApp } from './app.ts';
import { logDestination, logFormat } from './http/logging.ts';
import { loadServerSecret } from './server-secret.ts';
import { backendOptions, budgetWarnings, loadSettings } from './settings/index.ts';
import { enableTracing } from './shared/tracing.ts';
import { TemporalBackend } from './temporal/backend.ts';
import { createTemporalClient } from './temporal/client.ts';
import { missingAttributeMessages } from './temporal/optional-attributes.ts';

/** Settings that must be right before anything listens: a bad one stops the start with its reason. */
async function startupSettings() {
  try {
    return {
      config: await loadSettings(),
      serverSecret: loadServerSecret(),
      logFormat: logFormat(process.env, Boolean(process.stdout.isTTY)),
    };
  } catch (err) {
    console.error(`gateway: cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
}

const { config, serverSecret, logFormat: format } = await startupSettings();
// Before the Temporal client is made: its tracing interceptor is added only when tracing is on.
const tracing = await startTracing('mcp-gateway');
if (tracing) enableTracing({ principalAttribute: config.tracePrincipal });
const client = createTemporalClient(config.temporal, config.temporalTimeoutMs, config.codec);
const backend = new TemporalBackend(client, {
  ...backendOptions(config, serverSecret.secret),
  // A poll or a start reports a stuck run it ended, and those come once the app below listens.
  onStuckRun: ({ workflowId, runId }, message) => app.log.warn({ workflowId, runId }, message),
});
// JSON lines are written off the request path (pino flushes what is pending when the process
// exits); on a terminal (or LOG_FORMAT=pretty), one readable line per request.
const stream = logDestination(format);
const app = buildApp(config, { backend, logger: { level: process.env.LOG_LEVEL || 'info', stream } });

const address = await app.listen({ host: config.host, port: config.port });
// The bound host, not Fastify's first address (127.0.0.1 even when listening on 0.0.0.0).
const bound = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${new URL(address).port}`;
app.log.info(
  `gateway: MCP on ${bound}/mcp; Temporal ${config.temporal.address}, namespace "${config.temporal.namespace}", ` +
    `task queue "${config.temporal.taskQueue}"; wait budget ${config.waitBudgetMs} ms`,
);
app.log.info(
  `gateway: tools from ${config.toolsFile ?? 'the built-in catalog'}: ${config.tools.map((t) => t.name).join(', ')}`,
);
for (const line of budgetWarnings(config)) app.log.warn(`gateway: ${line}`);
if (config.plaintextSecrets)
  app.log.warn(
    `gateway: MCP_ALLOW_PLAINTEXT_SECRETS=true: the secret arguments of ${config.plaintextSecrets.join('; ')} ` +
      'reach Temporal history in clear (no payload codec: set MCP_CODEC_KEYS to encrypt them)',
  );
// Said once, when Temporal can tell (an unreachable Temporal is the readiness check's to report).
void backend.optionalAttributes.look().then((registered) => {
  for (const line of registered ? missingAttributeMessages(registered, config.temporal.namespace) : [])
    app.log.warn(`gateway: ${line}`);
});
app.log.info(
  `gateway: ${
    config.firstStartTokenFile
      ? `a token of principal "user" generated on first start, in ${config.firstStartTokenFile} ` +
        `(print it with: docker compose exec gateway cat ${config.firstStartTokenFile})`
      : config.authTokens.size > 0
        ? `bearer tokens for ${config.authTokens.size} principal(s)`
        : 'no authentication (loopback only; every caller is "anonymous")'
  }; server secret from ${serverSecret.source}; at most ${config.maxRunningTasks || 'unlimited'} running task(s) per principal`,
);
app.log.info(
  `gateway: ${describeCodec(config.codec?.keys)}` +
    (config.codecServer
      ? `; codec server on ${bound}/codec for ${config.codecServer.corsOrigins.join(', ') || 'no browser origin'}`
      : ''),
);
app.log.info(
  tracing
    ? `gateway: traces to ${traceDestination()} as service "${tracing.serviceName}"`
    : 'gateway: tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER)',
);

// SIGINT/SIGTERM: end the task streams and answer the calls still waiting (their handles), stop
// taking requests, finish the ones in flight (at most 10 s, then the connections are closed), close
// the Temporal connection (at most 2 s: an unreachable Temporal must not hold the exit up), exit.
let stopping = false;
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info(`gateway: ${signal}, shutting down`);
  try {
    const closed = app.close();
    if ((await Promise.race([closed.then(() => true), delay(10_000, false, { ref: false })])) === false) {
      app.log.warn('gateway: requests still open 10 s into the shutdown; closing their connections');
      app.server.closeAllConnections();
      await closed;
    }
    await Promise.race([client.connection.close(), delay(2_000, undefined, { ref: false })]);
    // Pending spans leave before the exit, within the same bound.
    if (tracing) await Promise.race([tracing.shutdown(), delay(2_000, undefined, { ref: false })]);
    process.exit(0);
  } catch (err) {
    app.log.error(err, 'gateway: unclean shutdown');
    process.exit(1);
  }
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
