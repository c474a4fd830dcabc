// `npm run gateway`: the MCP gateway process. Configuration from the environment (see config.ts).
import { buildApp } from './app.ts';
import { gatewayConfig } from './config.ts';
import { createTemporalClient } from './temporal-client.ts';
import { TemporalMining } from './temporal-mining.ts';

const config = gatewayConfig();
const client = createTemporalClient(config.temporal, config.temporalTimeoutMs);
const backend = new TemporalMining(client, {
  taskQueue: config.temporal.taskQueue,
  namespace: config.temporal.namespace,
  callTimeoutMs: config.temporalTimeoutMs,
  queryTimeoutMs: config.queryTimeoutMs,
});
const app = buildApp(config, { backend, logger: { level: process.env.LOG_LEVEL || 'info' } });

const address = await app.listen({ host: config.host, port: config.port });
app.log.info(
  `gateway: MCP on ${address}/mcp; Temporal ${config.temporal.address}, namespace "${config.temporal.namespace}", ` +
    `task queue "${config.temporal.taskQueue}"; wait budget ${config.waitBudgetMs} ms`,
);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    app.log.info(`gateway: ${signal}, shutting down`);
    app
      .close()
      .then(() => client.connection.close())
      .then(() => process.exit(0))
      .catch((err) => {
        app.log.error(err, 'gateway: unclean shutdown');
        process.exit(1);
      });
  });
}
