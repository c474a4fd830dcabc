// What the standalone gateway process (main.ts) does around the plugin: its settings read before
// anything listens, its start log, and its shutdown on SIGINT/SIGTERM.
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { describeCodec } from '../common/codec-settings.ts';
import { traceDestination } from '../common/tracing.ts';
import { logFormat } from './http/logging.ts';
import { loadServerSecret } from './server-secret.ts';
import { budgetWarnings, type GatewaySettings, loadSettings } from './settings/index.ts';

/** Settings that must be right before anything listens: a bad one stops the start with its reason. */
export async function startupSettings() {
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

interface Started {
  config: GatewaySettings;
  /** Where the app listens, as http://<host>:<port>. */
  bound: string;
  secretSource: string;
  tracing: { serviceName: string } | undefined;
}

/** The start log: where MCP is, the tools, who may call, the codec, tracing. */
export function logStart(app: FastifyInstance, { config, bound, secretSource, tracing }: Started): void {
  app.log.info(
    `gateway: MCP on ${bound}/mcp; Temporal ${config.temporal.address}, namespace "${config.temporal.namespace}", ` +
      `task queue "${config.temporal.taskQueue}"; wait budget ${config.waitBudgetMs} ms`,
  );
  app.log.info(
    `gateway: tools from ${config.toolsFile ?? 'the built-in catalog'}: ${config.tools.map((t) => t.name).join(', ')}`,
  );
  for (const line of budgetWarnings(config)) app.log.warn(`gateway: ${line}`);
  // Gone since the gateways are counted from Temporal: an operator upgrading is told it does nothing.
  if (process.env.MCP_GATEWAY_REPLICAS !== undefined)
    app.log.warn(
      "gateway: MCP_GATEWAY_REPLICAS is ignored: the gateways sharing a principal's bounds are counted " +
        `from Temporal (those polling "${config.fleet ?? config.temporal.taskQueue}-gateways"); unset it`,
    );
  if (config.plaintextSecrets)
    app.log.warn(
      `gateway: MCP_ALLOW_PLAINTEXT_SECRETS=true: the secret arguments of ${config.plaintextSecrets.join('; ')} ` +
        'reach Temporal history in clear (no payload codec: set MCP_CODEC_KEYS to encrypt them)',
    );
  app.log.info(
    `gateway: ${
      config.firstStartTokenFile
        ? `a token of principal "user" generated on first start, in ${config.firstStartTokenFile} ` +
          `(print it with: docker compose exec gateway cat ${config.firstStartTokenFile})`
        : config.authTokens.size > 0
          ? `bearer tokens for ${config.authTokens.size} principal(s)`
          : 'no authentication (loopback only; every caller is "anonymous")'
    }; server secret from ${secretSource}; at most ${config.maxRunningTasks || 'unlimited'} running task(s) per principal`,
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
}

/**
 * On SIGINT/SIGTERM: end the task streams and answer the calls still waiting (their handles), stop
 * taking requests, finish the ones in flight (at most 10 s, then the connections are closed), close
 * the Temporal connection (the plugin bounds it: an unreachable Temporal must not hold the exit
 * up), send the pending spans (at most 2 s), exit.
 */
export function shutdownOn(app: FastifyInstance, tracing: { shutdown(): Promise<void> } | undefined): void {
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
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
      if (tracing) await Promise.race([tracing.shutdown(), delay(2_000, undefined, { ref: false })]);
      process.exit(0);
    } catch (err) {
      app.log.error(err, 'gateway: unclean shutdown');
      process.exit(1);
    }
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
