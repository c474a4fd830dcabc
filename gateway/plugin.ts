// The package's Fastify plugin: `await app.register(temporalMcp, { prefix, settings, ... })` mounts
// the gateway's MCP endpoint (`<prefix>/mcp`) in the host's app, encapsulated: the catalog's durable
// tools and the host's quick tools on one endpoint, the host's logger, closed with the host's app.
// The plugin makes what the standalone gateway's main makes (the Temporal client unless given one,
// the backend over it, the catalog) and mounts the same routes (routes.ts).
import type { Client } from '@temporalio/client';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { booleanSetting } from '../common/settings.ts';
import type { HostAuthenticate } from './http/host-auth.ts';
import type { CatalogEntry, CatalogTool } from './mcp/catalog.ts';
import { catalogOfEntries, loadCatalog } from './mcp/catalog-file.ts';
import type { QuickTool } from './mcp/host-tools.ts';
import { gatewayRoutes } from './routes.ts';
import { loadServerSecret } from './server-secret.ts';
import { backendOptions, type GatewaySettings, secretsInClear } from './settings/index.ts';
import { TemporalBackend } from './temporal/backend.ts';
import { createTemporalClient } from './temporal/client.ts';

/** Longest the plugin waits for its own Temporal connection to close with the app. */
const CLOSE_CONNECTION_MS = 2_000;

export interface TemporalMcpOptions {
  /** The gateway's settings: `await loadGatewaySettings()` (the environment), changed as the host likes. */
  settings: GatewaySettings;
  /**
   * The host's Temporal client (the host closes it; its namespace is the one served). Absent: the
   * plugin connects to `settings.temporal` (with the payload codec of the settings) and closes the
   * connection when the app closes.
   */
  client?: Client;
  /** The secret (at least 32 characters) that keys task ids; absent: MCP_SERVER_SECRET(_FILE) or `.data/`. */
  serverSecret?: string;
  /**
   * The durable tools: a catalog file (YAML, JSON) or module path, or catalog entries. Absent: the
   * settings' tools (MCP_TOOLS_FILE, else the built-in catalog).
   */
  catalog?: string | CatalogEntry[];
  /** The host's quick tools, answered by their handlers, inline; never a workflow. */
  tools?: QuickTool[];
  /** The host's authentication of /mcp callers; absent: the settings' bearer tokens and OAuth. */
  authenticate?: HostAuthenticate;
  /** Whether to mount `<prefix>/healthz`, `<prefix>/readyz` and `<prefix>/metrics` too (default: no). */
  probes?: boolean;
}

/** The catalog's tools: those the option names, or the settings'. */
async function catalogTools(settings: GatewaySettings, catalog: TemporalMcpOptions['catalog']) {
  if (catalog === undefined) return settings.tools;
  const defaults = { taskQueue: settings.temporal.taskQueue, waitBudgetMs: settings.waitBudgetMs };
  const tools: CatalogTool[] =
    typeof catalog === 'string'
      ? await loadCatalog(catalog, defaults)
      : await catalogOfEntries(
          catalog,
          { source: 'catalog', path: `${process.cwd()}/` },
          defaults,
          process.env,
        );
  // A secret argument would reach Temporal history in clear without a codec: refused as at a start.
  if (!settings.codec) secretsInClear(tools, booleanSetting(process.env, 'MCP_ALLOW_PLAINTEXT_SECRETS'));
  return tools;
}

/**
 * Closes the plugin's own Temporal connection once the app has closed, within a bound (an unreachable
 * Temporal must not hold the close up), after a connection attempt under way has settled: closing
 * under one throws from inside the client.
 */
function closeWithApp(app: FastifyInstance, client: Client, backend: TemporalBackend): void {
  app.addHook('onClose', async () => {
    // The fleet's background calls end first: none may go on on a closed connection.
    await backend.fleet.leave();
    const closed = client.connection
      .ensureConnected()
      .catch(() => {})
      .then(() => client.connection.close())
      .catch(() => {});
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CLOSE_CONNECTION_MS).unref())]);
  });
}

export const temporalMcp: FastifyPluginAsync<TemporalMcpOptions> = async (app, options) => {
  const { settings } = options;
  const tools = await catalogTools(settings, options.catalog);
  const secret = loadServerSecret(
    options.serverSecret === undefined ? process.env : { MCP_SERVER_SECRET: options.serverSecret },
  );
  const client =
    options.client ??
    (await createTemporalClient(settings.temporal, settings.temporalTimeoutMs, settings.codec));
  const namespace = options.client?.options.namespace ?? settings.temporal.namespace;
  const backend = new TemporalBackend(client, {
    ...backendOptions(settings, secret.secret),
    namespace,
    // A poll or a start reports a stuck run it ended.
    onStuckRun: ({ workflowId, runId }, message) => app.log.warn({ workflowId, runId }, message),
  });
  await app.register(gatewayRoutes, {
    ...{ settings, backend, tools, probes: options.probes ?? false },
    ...(options.tools ? { hostTools: options.tools } : {}),
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
  });
  if (!options.client) closeWithApp(app, client, backend);
};
