// A production-shaped stack on one machine: PostgreSQL, the Temporal server's four services as
// separate processes on it, the Web UI, two gateways behind a round-robin HAProxy, three workers.
// `npm run cluster` runs it (launcher/cluster/main.ts); test/cluster.test.ts starts one of its own
// and breaks pieces of it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { retryUntil } from '../../common/poll.ts';
import { DEFAULT_TASK_QUEUE } from '../../common/temporal-env.ts';
import { GATEWAY_NODE_FLAGS } from '../../gateway/runtime-flags.ts';
import { SEARCH_ATTRIBUTES } from '../dev-server.ts';
import { freePort } from '../free-port.ts';
import { ensureTemporalCli } from '../temporal-cli.ts';
import { ClusterProcess, type ClusterProcessSpec } from './cluster-process.ts';
import { ensureTemporalRole, findPostgresBin, initPostgres, openPathTo, postgresSpec } from './postgres.ts';
import { findHaproxy, proxySpec, writeProxyConfig } from './proxy.ts';
import {
  ensureTemporalBinaries,
  goBinFolders,
  portOpen,
  setupSchemas,
  TEMPORAL_SERVICES,
  type TemporalPorts,
  type TemporalService,
  temporalServiceSpec,
  writeTemporalConfig,
} from './temporal-server.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Inside the repository, so the bundle's imports resolve from its node_modules.
const GATEWAY_BUNDLE = join(ROOT, 'node_modules', '.cache', 'cluster-gateway.mjs');

const NAMESPACE = 'default';
/** Keeps closed runs a day: as long as the gateway advertises a task (MCP_TASK_TTL_MS). */
export const NAMESPACE_RETENTION = '24h';

export interface ClusterPorts {
  postgres: number;
  temporal: TemporalPorts;
  ui: number;
  proxy: number;
  gateways: number[];
}

/** Fixed ports for `npm run cluster`, all offsets from `base` (default 17000: the MCP endpoint on 17300). */
export function defaultClusterPorts(base = 17_000, gateways = 2): ClusterPorts {
  return {
    postgres: base + 432,
    temporal: {
      grpc: { frontend: base + 233, history: base + 234, matching: base + 235, worker: base + 239 },
      membership: { frontend: base + 933, history: base + 934, matching: base + 935, worker: base + 939 },
      frontendHttp: base + 243,
    },
    ui: base + 1_233,
    proxy: base + 300,
    gateways: Array.from({ length: gateways }, (_, i) => base + 301 + i),
  };
}

/** Every port free right now (tests). */
export async function freeClusterPorts(gateways = 2): Promise<ClusterPorts> {
  const taken = new Set<number>();
  const next = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const perService = async () =>
    Object.fromEntries(await Promise.all(TEMPORAL_SERVICES.map(async (s) => [s, await next()]))) as Record<
      TemporalService,
      number
    >;
  return {
    postgres: await next(),
    temporal: { grpc: await perService(), membership: await perService(), frontendHttp: await next() },
    ui: await next(),
    proxy: await next(),
    gateways: await Promise.all(Array.from({ length: gateways }, next)),
  };
}

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

/** Names the first port of the list that something already listens on. */
async function assertPortsFree(ports: ClusterPorts): Promise<void> {
  const named: Array<[string, number]> = [
    ['postgres', ports.postgres],
    ...TEMPORAL_SERVICES.map((s): [string, number] => [`${s} gRPC`, ports.temporal.grpc[s]]),
    ...TEMPORAL_SERVICES.map((s): [string, number] => [`${s} membership`, ports.temporal.membership[s]]),
    ['frontend HTTP', ports.temporal.frontendHttp],
    ['Web UI', ports.ui],
    ['proxy', ports.proxy],
    ...ports.gateways.map((p, i): [string, number] => [`gateway-${i + 1}`, p]),
  ];
  for (const [name, port] of named) {
    if (await portOpen(port))
      throw new Error(
        `port ${port} (${name}) is already in use: is a cluster already running? Stop it, or pick other ports with CLUSTER_PORT_BASE`,
      );
  }
}

function nodeSpec(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: ClusterProcessSpec['ready'],
  stopGraceMs: number,
): ClusterProcessSpec {
  return {
    name,
    command: process.execPath,
    args,
    cwd: ROOT,
    env,
    ready,
    readyTimeoutMs: 90_000,
    stopGraceMs,
  };
}

async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await response.body?.cancel();
  return response.ok;
}

async function temporalCli(cli: string, address: string, args: string[]): Promise<string> {
  const { stdout } = await run(cli, [...args, '--address', address], { timeout: 15_000 });
  return stdout;
}

/** The namespace with a day's retention, and the search attributes the gateway writes. */
async function prepareNamespace(cli: string, address: string, say: (line: string) => void): Promise<void> {
  await retryUntil(
    async () => {
      try {
        await temporalCli(cli, address, ['operator', 'namespace', 'describe', '--namespace', NAMESPACE]);
      } catch {
        say(`registering namespace ${NAMESPACE} (retention ${NAMESPACE_RETENTION})`);
        await temporalCli(cli, address, [
          'operator',
          'namespace',
          'create',
          '--namespace',
          NAMESPACE,
          '--retention',
          NAMESPACE_RETENTION,
        ]);
      }
    },
    { timeoutMs: 90_000, intervalMs: 1_000 },
  );
  const listed = JSON.parse(
    await retryUntil(
      () =>
        temporalCli(cli, address, [
          'operator',
          'search-attribute',
          'list',
          '--namespace',
          NAMESPACE,
          '-o',
          'json',
        ]),
      { timeoutMs: 30_000, intervalMs: 500 },
    ),
  ) as { customAttributes?: Record<string, unknown> };
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
    if (listed.customAttributes?.[name]) continue;
    say(`registering search attribute ${name} (${type})`);
    await retryUntil(
      () =>
        temporalCli(cli, address, [
          'operator',
          'search-attribute',
          'create',
          '--namespace',
          NAMESPACE,
          '--name',
          name,
          '--type',
          type,
        ]),
      { timeoutMs: 30_000, intervalMs: 500 },
    );
  }
}

/** The secret every gateway shares (idempotent task ids must agree), made once. */
function serverSecretFile(dataDir: string): string {
  const path = join(dataDir, 'server-secret');
  if (!existsSync(path)) writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return path;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const say = options.say ?? (() => {});
  const dataDir = resolve(options.dataDir);
  const { ports } = options;
  const logDir = join(dataDir, 'logs');
  const workerDataDir = join(dataDir, 'worker-data');
  for (const dir of [dataDir, logDir, workerDataDir, join(dataDir, 'gateway-data')])
    mkdirSync(dir, { recursive: true });
  const processOptions = { logDir, echo: options.echo, labelWidth: 16 };
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  const temporalAddress = `127.0.0.1:${ports.temporal.grpc.frontend}`;

  // Everything it needs, before anything starts.
  const pgBin = findPostgresBin();
  const haproxy = findHaproxy();
  // Built with Go by scripts/install-temporal-server.sh when missing (minutes, once).
  const binaries = await ensureTemporalBinaries(
    say,
    options.ui === false ? undefined : () => findUiBinary() !== undefined,
  );
  const uiBinary = options.ui === false ? undefined : findUiBinary();
  const cli = await ensureTemporalCli((chunk) => say(chunk.toString().trimEnd()));
  await assertPortsFree(ports);

  const started: ClusterProcess[] = [];
  const startOne = async (spec: ClusterProcessSpec): Promise<ClusterProcess> => {
    if (options.signal?.aborted) throw new Error(`start aborted before ${spec.name}`);
    const proc = new ClusterProcess(spec, processOptions);
    started.push(proc);
    await proc.start();
    return proc;
  };
  const stopAll = async () => {
    for (const group of stopGroups(started)) await Promise.all(group.map((p) => p.stop()));
  };

  const onAbort = () => void stopAll();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // The gateway and workflow bundles build while the database comes up.
    const bundlePath = join(dataDir, 'workflow-bundle.js');
    const bundles = Promise.all([
      run(process.execPath, ['--import', 'tsx', 'scripts/build-workflow-bundle.ts', bundlePath], {
        cwd: ROOT,
      }),
      import('../../scripts/build-gateway.ts').then(({ buildGateway }) => {
        mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
        return buildGateway(GATEWAY_BUNDLE);
      }),
    ]);
    bundles.catch(() => {});

    const pgData = join(dataDir, 'postgres');
    openPathTo(pgData, dataDir.split('/').slice(0, 2).join('/') || '/');
    if (await initPostgres(pgBin, pgData)) say(`PostgreSQL: new database cluster in ${pgData}`);
    const postgres = await startOne(postgresSpec({ bin: pgBin, dataDir: pgData, port: ports.postgres }));
    say(`PostgreSQL ready on 127.0.0.1:${ports.postgres} (pid ${postgres.pid})`);
    await ensureTemporalRole(ports.postgres);
    await setupSchemas(binaries.sql, ports.postgres, say);
    say('Temporal schemas (temporal, temporal_visibility) up to date');

    const temporalRoot = join(dataDir, 'temporal');
    writeTemporalConfig({
      configDir: join(temporalRoot, 'config'),
      postgresPort: ports.postgres,
      ports: ports.temporal,
    });
    const spec = (service: TemporalService) =>
      temporalServiceSpec(binaries, temporalRoot, 'config', service, ports.temporal);
    // History first, alone: on a new database the first service to start writes the cluster
    // metadata, and services starting at the same moment race for it (the losers exit).
    const history = await startOne(spec('history'));
    const [matching, frontend] = await Promise.all(
      (['matching', 'frontend'] as const).map((s) => startOne(spec(s))),
    );
    const worker = await startOne(spec('worker'));
    const temporal = { history, matching, frontend, worker } as Record<TemporalService, ClusterProcess>;
    say(
      `Temporal services up: ${Object.values(temporal)
        .map((p) => `${p.name} (pid ${p.pid})`)
        .join(', ')}`,
    );
    await prepareNamespace(cli, temporalAddress, say);
    say(`Temporal ready at ${temporalAddress}, namespace ${NAMESPACE}`);

    // MCP_CODEC_SERVER=true (with MCP_CODEC_KEYS): the UI decodes payloads through the gateways'
    // codec server, behind the proxy; the UI's own origin is the one the gateways allow.
    const codecServer = process.env.MCP_CODEC_SERVER?.trim() === 'true';
    const codecEnv: NodeJS.ProcessEnv =
      codecServer && !process.env.MCP_CODEC_CORS_ORIGINS?.trim()
        ? { MCP_CODEC_CORS_ORIGINS: `http://127.0.0.1:${ports.ui},http://localhost:${ports.ui}` }
        : {};
    const uiStarting = uiBinary
      ? startOne({
          name: 'ui',
          command: uiBinary,
          args: [
            '--port',
            String(ports.ui),
            '--temporal-address',
            temporalAddress,
            ...(codecServer ? ['--codec-endpoint', `http://127.0.0.1:${ports.proxy}/codec`] : []),
          ],
          ready: () => httpOk(`http://127.0.0.1:${ports.ui}/`),
          readyTimeoutMs: 30_000,
          stopGraceMs: 5_000,
        })
      : Promise.resolve(undefined);

    await bundles;
    const common = {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TEMPORAL_TASK_QUEUE: taskQueue,
    };
    const workers = await Promise.all(
      Array.from({ length: options.workers ?? 3 }, (_, i) =>
        startOne(
          nodeSpec(
            `worker-${i + 1}`,
            ['--import', 'tsx', 'worker/main.ts'],
            {
              ...common,
              WORKFLOW_BUNDLE_PATH: bundlePath,
              MCP_DATA_DIR: workerDataDir,
              ...options.workerEnv,
            },
            async (output) => output().includes('worker: polling task queue'),
            20_000,
          ),
        ),
      ),
    );
    const secretFile = serverSecretFile(dataDir);
    const gateways = await Promise.all(
      ports.gateways.map((port, i) =>
        startOne(
          nodeSpec(
            `gateway-${i + 1}`,
            [...GATEWAY_NODE_FLAGS, GATEWAY_BUNDLE],
            {
              ...common,
              MCP_HOST: '127.0.0.1',
              MCP_PORT: String(port),
              MCP_SERVER_SECRET_FILE: secretFile,
              MCP_DATA_DIR: join(dataDir, 'gateway-data'),
              LOG_FORMAT: 'json',
              ...codecEnv,
              ...options.gatewayEnv,
            },
            () => httpOk(`http://127.0.0.1:${port}/readyz`),
            15_000,
          ),
        ),
      ),
    );
    const proxyConfig = join(dataDir, 'haproxy.cfg');
    writeProxyConfig({ configFile: proxyConfig, port: ports.proxy, gatewayPorts: ports.gateways });
    const proxy = await startOne(proxySpec(haproxy, proxyConfig, ports.proxy));
    const ui = await uiStarting;

    const cluster: Cluster = {
      dataDir,
      ports,
      temporalAddress,
      taskQueue,
      mcpUrl: new URL(`http://127.0.0.1:${ports.proxy}/mcp`),
      gatewayUrls: ports.gateways.map((p) => new URL(`http://127.0.0.1:${p}/mcp`)),
      uiUrl: ui ? `http://127.0.0.1:${ports.ui}` : undefined,
      temporalCli: cli,
      postgres,
      temporal,
      ui,
      gateways,
      workers,
      proxy,
      workerDataDir,
      all: () => [...started],
      stop: stopAll,
    };
    writePids(cluster);
    return cluster;
  } catch (err) {
    await stopAll().catch(() => {});
    throw err;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The stopping order: proxy; gateways; workers and UI; Temporal worker, frontend; matching, history; PostgreSQL. */
function stopGroups(processes: ClusterProcess[]): ClusterProcess[][] {
  const rank = (name: string): number => {
    if (name === 'proxy') return 0;
    if (name.startsWith('gateway-')) return 1;
    if (name.startsWith('worker-') || name === 'ui') return 2;
    if (name === 'temporal-worker' || name === 'frontend') return 3;
    if (name === 'matching' || name === 'history') return 4;
    return 5; // postgres
  };
  const groups: ClusterProcess[][] = [[], [], [], [], [], []];
  for (const p of processes) groups[rank(p.name)]?.push(p);
  return groups;
}

/** `<dataDir>/pids.json`: every process's current pid, to find them by hand if need be. */
function writePids(cluster: Cluster): void {
  const pids = Object.fromEntries(cluster.all().map((p) => [p.name, p.running ? p.pid : null]));
  writeFileSync(join(cluster.dataDir, 'pids.json'), `${JSON.stringify(pids, null, 2)}\n`);
}
