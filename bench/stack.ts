// The processes a bench run measures: a Temporal dev server, workers, and the gateway as its own
// process (run.ts starts it compiled and with its Node.js flags, as the container runs it), all on
// loopback.
import { freePort } from '../launcher/free-port.ts';
import { startTestProcess, type TestProcess } from '../test/support/child-process.ts';
import { startWorker, type WorkerProcess } from '../test/support/worker-process.ts';

/** How bench children run: output to a file (see TestProcessOptions.output), 90 s to get ready. */
export const BENCH_CHILD = { output: 'file', readyTimeoutMs: 90_000 } as const;

/** A workflows-only worker: runs it starts stay Running and idle (see parked-worker.ts). */
export function startParkedWorker(
  temporalAddress: string,
  taskQueue: string,
  env: Record<string, string> = {},
): Promise<TestProcess> {
  return startTestProcess({
    name: 'parked worker',
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/parked-worker.ts'],
    env: { TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_TASK_QUEUE: taskQueue, ...env },
    readyText: 'parked worker: polling',
    ...BENCH_CHILD,
  });
}

/** A bare HTTP front that only starts runs (bare-proxy.ts): the floor of any gateway process. */
export async function startBareProxy(
  temporalAddress: string,
  taskQueue: string,
): Promise<TestProcess & { url: URL }> {
  const port = await freePort();
  const child = await startTestProcess({
    name: 'bare proxy',
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/bare-proxy.ts'],
    env: { TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_TASK_QUEUE: taskQueue, PORT: String(port) },
    readyText: 'bare proxy: listening',
    ...BENCH_CHILD,
  });
  return { ...child, url: new URL(`http://127.0.0.1:${port}/`) };
}

/** The product's worker process (workflows and mining activities). */
export async function startMiningWorker(
  temporalAddress: string,
  taskQueue: string,
  dataDir: string,
): Promise<WorkerProcess> {
  const worker = startWorker({
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MCP_DATA_DIR: dataDir,
  });
  await worker.ready;
  return worker;
}

export interface GatewayProcess extends TestProcess {
  url: URL;
}

export interface GatewayProcessOptions {
  temporalAddress: string;
  taskQueue: string;
  waitBudgetMs: number;
  /** Node.js arguments that run the gateway (compiledGateway() or GATEWAY_UNDER_TSX, gateway-process.ts). */
  nodeArgs: string[];
  /** Listen here (when a setting must name the URL beforehand); a free port by default. */
  port?: number;
  /** More gateway settings. */
  env?: Record<string, string>;
}

/** The bench holds hundreds of running tasks for one (anonymous) principal: no per-principal bounds. */
export const BENCH_GATEWAY_ENV = {
  MCP_MAX_RUNNING_TASKS: '0',
  MCP_MAX_STARTS_PER_SECOND: '0',
  MCP_MAX_WAITS_PER_PRINCIPAL: '0',
};

export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const port = options.port ?? (await freePort());
  const child = await startTestProcess({
    name: 'gateway',
    command: process.execPath,
    args: options.nodeArgs,
    env: {
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      MCP_HOST: '127.0.0.1',
      MCP_PORT: String(port),
      MCP_WAIT_BUDGET_MS: String(options.waitBudgetMs),
      ...BENCH_GATEWAY_ENV,
      ...options.env,
    },
    readyText: 'gateway: MCP on',
    ...BENCH_CHILD,
  });
  return { ...child, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}
