// A production-shaped stack on one machine: PostgreSQL, the Temporal server's four services as
// separate processes on it, the Web UI, two gateways behind a round-robin HAProxy, three workers.
// `npm run cluster` runs it (launcher/cluster/main.ts); test/cluster.test.ts starts one of its own
// and breaks pieces of it. The start goes in phases, each waiting for the last to be ready:
// requirements, PostgreSQL and the schemas, Temporal and the namespace, workers and gateways, proxy.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_TASK_QUEUE } from '../../common/temporal-env.ts';
import { ensureTemporalCli } from '../temporal-cli.ts';
import { type AppContext, buildBundles, gatewaySpec, uiSpec, workerSpec } from './app-processes.ts';
import type { ClusterProcess } from './cluster-process.ts';
import { Launch } from './launch.ts';
import { NAMESPACE, prepareNamespace } from './namespace.ts';
import { assertPortsFree, type ClusterPorts } from './ports.ts';
import { ensureTemporalRole, findPostgresBin, initPostgres, openPathTo, postgresSpec } from './postgres.ts';
import { findHaproxy, proxySpec, writeProxyConfig } from './proxy.ts';
import { writeTemporalConfig } from './temporal-config.ts';
import {
  ensureTemporalBinaries,
  goBinFolders,
  setupSchemas,
  type TemporalBinaries,
  type TemporalService,
  temporalServiceSpec,
} from './temporal-server.ts';

export interface ClusterOptions {
  /** Everything the cluster keeps: the database, configs, logs, the workers' ledger, the bundles. */
  dataDir: string;
  ports: ClusterPorts;
  workers?: number;
  taskQueue?: string;
  /** Serve the Web UI (when its binary is installed). */
  ui?: boolean;
  /** Progress messages of the start itself. */
  say?: (line: string) => void;
  /** Every process's output lines, prefixed (they always go to `<dataDir>/logs/<name>.log`). */
  echo?: (line: string) => void;
  gatewayEnv?: Record<string, string>;
  workerEnv?: Record<string, string>;
  /** Aborting it while the cluster starts stops what has started and rejects. */
  signal?: AbortSignal;
}

export interface Cluster {
  dataDir: string;
  ports: ClusterPorts;
  temporalAddress: string;
  taskQueue: string;
  /** The MCP endpoint behind the proxy. */
  mcpUrl: URL;
  /** Each gateway's own MCP endpoint. */
  gatewayUrls: URL[];
  uiUrl?: string;
  temporalCli: string;
  postgres: ClusterProcess;
  temporal: Record<TemporalService, ClusterProcess>;
  ui?: ClusterProcess;
  gateways: ClusterProcess[];
  workers: ClusterProcess[];
  proxy: ClusterProcess;
  /** The workers' shared data folder (the ledger of published chains). */
  workerDataDir: string;
  /** Every process, in start order. */
  all(): ClusterProcess[];
  /** Stops everything, front to back: proxy, gateways, workers, UI, Temporal, PostgreSQL. */
  stop(): Promise<void>;
}

/** The UI binary built from launcher/cluster/ui (the UI server the Temporal CLI embeds). */
function findUiBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.TEMPORAL_UI_PATH) return existsSync(env.TEMPORAL_UI_PATH) ? env.TEMPORAL_UI_PATH : undefined;
  return goBinFolders(env)
    .map((dir) => join(dir, 'cluster-ui'))
    .find(existsSync);
}

/** Every program the cluster runs, found (or built) before anything starts. */
interface Requirements {
  pgBin: string;
  haproxy: string;
  binaries: TemporalBinaries;
  uiBinary?: string;
  cli: string;
}

async function requirements(options: ClusterOptions, say: (line: string) => void): Promise<Requirements> {
  const pgBin = findPostgresBin();
  const haproxy = findHaproxy();
  const wantsUi = options.ui !== false;
  // Built with Go by scripts/install-temporal-server.sh when missing (minutes, once).
  const binaries = await ensureTemporalBinaries(
    say,
    wantsUi ? () => findUiBinary() !== undefined : undefined,
  );
  const uiBinary = wantsUi ? findUiBinary() : undefined;
  const cli = await ensureTemporalCli((chunk) => say(chunk.toString().trimEnd()));
  await assertPortsFree(options.ports);
  return { pgBin, haproxy, binaries, uiBinary, cli };
}

/** PostgreSQL on its own data folder, the Temporal role and both schemas brought up to date. */
async function startDatabase(
  launch: Launch,
  needs: Requirements,
  dataDir: string,
  say: (line: string) => void,
) {
  const pgData = join(dataDir, 'postgres');
  const port = launch.ports.postgres;
  openPathTo(pgData, dataDir.split('/').slice(0, 2).join('/') || '/');
  if (await initPostgres(needs.pgBin, pgData)) say(`PostgreSQL: new database cluster in ${pgData}`);
  const postgres = await launch.start(postgresSpec({ bin: needs.pgBin, dataDir: pgData, port }));
  say(`PostgreSQL ready on 127.0.0.1:${port} (pid ${postgres.pid})`);
  await ensureTemporalRole(port);
  await setupSchemas(needs.binaries.sql, port, say);
  say('Temporal schemas (temporal, temporal_visibility) up to date');
  return postgres;
}

/** The four services from one config (history first, alone; the worker last), then the namespace. */
async function startTemporal(
  launch: Launch,
  needs: Requirements,
  dataDir: string,
  say: (line: string) => void,
) {
  const { ports } = launch;
  const root = join(dataDir, 'temporal');
  writeTemporalConfig({ root, postgresPort: ports.postgres, ports: ports.temporal });
  const host = { binaries: needs.binaries, root, ports: ports.temporal };
  const spec = (service: TemporalService) => temporalServiceSpec(service, host);
  // On a new database the first service to start writes the cluster metadata, and services
  // starting at the same moment race for it (the losers exit).
  const history = await launch.start(spec('history'));
  const [matching, frontend] = await Promise.all(
    (['matching', 'frontend'] as const).map((s) => launch.start(spec(s))),
  );
  const worker = await launch.start(spec('worker'));
  const temporal = { history, matching, frontend, worker } as Record<TemporalService, ClusterProcess>;
  say(
    `Temporal services up: ${Object.values(temporal)
      .map((p) => `${p.name} (pid ${p.pid})`)
      .join(', ')}`,
  );
  const address = `127.0.0.1:${ports.temporal.grpc.frontend}`;
  await prepareNamespace(needs.cli, address, say);
  say(`Temporal ready at ${address}, namespace ${NAMESPACE}`);
  return temporal;
}

/** Workers and gateways at once (the workflow bundle and the gateway's built first), then the proxy. */
async function startApps(launch: Launch, app: AppContext, options: ClusterOptions, haproxy: string) {
  const workers = await Promise.all(
    Array.from({ length: options.workers ?? 3 }, (_, i) =>
      launch.start(workerSpec(i, app, options.workerEnv)),
    ),
  );
  const gateways = await Promise.all(
    app.ports.gateways.map((_, i) => launch.start(gatewaySpec(i, app, options.gatewayEnv))),
  );
  const configFile = join(app.dataDir, 'haproxy.cfg');
  writeProxyConfig({ configFile, port: app.ports.proxy, gatewayPorts: app.ports.gateways });
  const proxy = await launch.start(proxySpec(haproxy, configFile, app.ports.proxy));
  return { workers, gateways, proxy };
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const say = options.say ?? (() => {});
  const dataDir = resolve(options.dataDir);
  const { ports } = options;
  const logDir = join(dataDir, 'logs');
  for (const dir of [dataDir, logDir, join(dataDir, 'worker-data'), join(dataDir, 'gateway-data')])
    mkdirSync(dir, { recursive: true });
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  const temporalAddress = `127.0.0.1:${ports.temporal.grpc.frontend}`;
  const needs = await requirements(options, say);
  const launch = new Launch(
    { logDir, echo: options.echo, labelWidth: 16 },
    { ports, signal: options.signal },
  );
  const onAbort = () => void launch.stopAll();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const workflowBundle = join(dataDir, 'workflow-bundle.js');
    const bundles = buildBundles(workflowBundle);
    const postgres = await startDatabase(launch, needs, dataDir, say);
    const temporal = await startTemporal(launch, needs, dataDir, say);
    const uiStarting = needs.uiBinary
      ? launch.start(uiSpec(needs.uiBinary, ports, temporalAddress))
      : undefined;
    await bundles;
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TEMPORAL_TASK_QUEUE: taskQueue,
    };
    const apps = await startApps(launch, { dataDir, ports, env, workflowBundle }, options, needs.haproxy);
    const ui = await uiStarting;
    launch.writePids(dataDir);
    return {
      ...apps,
      dataDir,
      ports,
      temporalAddress,
      taskQueue,
      mcpUrl: new URL(`http://127.0.0.1:${ports.proxy}/mcp`),
      gatewayUrls: ports.gateways.map((p) => new URL(`http://127.0.0.1:${p}/mcp`)),
      uiUrl: ui ? `http://127.0.0.1:${ports.ui}` : undefined,
      temporalCli: needs.cli,
      postgres,
      temporal,
      ui,
      workerDataDir: join(dataDir, 'worker-data'),
      all: () => launch.all(),
      stop: () => launch.stopAll(),
    };
  } catch (err) {
    await launch.stopAll().catch(() => {});
    throw err;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}
