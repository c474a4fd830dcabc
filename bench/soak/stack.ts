// The processes of a soak, each one killable and started again where it was: a Temporal dev server
// on a fixed port and database file (its runs survive the restart), worker processes, and two
// gateway processes on fixed ports sharing one server secret (either answers for the other's
// tasks), with a bearer token per principal. The gateways serve the soak's catalog (catalog.ts,
// compiled): mining, and write_report, whose runs a worker of their own serves (never killed) and
// whose artifacts the gateways read from the soak's folder. Children write their output to files,
// so their logs never run on the event loop that times the calls.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DevServer } from '../../launcher/dev-server.ts';
import { freePort } from '../../launcher/free-port.ts';
import { compile } from '../../scripts/build-gateway.ts';
import { startTestProcess, type TestProcess } from '../../test/support/child-process.ts';
import { compiledGateway } from '../../test/support/gateway-process.ts';
import { BENCH_CHILD, type GatewayProcess, startGatewayProcess } from '../stack.ts';
import type { SoakSettings } from './settings.ts';

export type FaultKind = 'worker' | 'gateway' | 'temporal';

// Inside the repository, so the compiled catalog's imports resolve from its node_modules.
const CATALOG = fileURLToPath(
  new URL(`../../node_modules/.cache/soak-catalog-${process.pid}.mjs`, import.meta.url),
);

export interface Principal {
  name: string;
  token: string;
}

export class SoakStack {
  readonly taskQueue = `soak-${process.pid}`;
  /** write_report's queue. */
  readonly artifactQueue = `soak-artifacts-${process.pid}`;
  readonly principals: Principal[];
  readonly gatewayUrls: URL[];
  private temporal: DevServer | undefined;
  private artifactWorker: TestProcess | undefined;
  private readonly workers: (TestProcess | undefined)[];
  private readonly gateways: (GatewayProcess | undefined)[];
  private readonly secret = randomBytes(32).toString('hex');

  private constructor(
    private readonly settings: SoakSettings,
    private readonly dataDir: string,
    private readonly ports: { temporal: number; gateways: number[] },
  ) {
    this.principals = Array.from({ length: settings.principals }, (_, i) => ({
      name: `soak-${i + 1}`,
      token: `soak-token-${i + 1}-${randomBytes(12).toString('hex')}`,
    }));
    this.gatewayUrls = ports.gateways.map((port) => new URL(`http://127.0.0.1:${port}/mcp`));
    this.workers = Array.from({ length: settings.workers }, () => undefined);
    this.gateways = ports.gateways.map(() => undefined);
  }

  /** Everything started and ready. */
  static async start(settings: SoakSettings): Promise<SoakStack> {
    const dataDir = mkdtempSync(join(tmpdir(), 'soak-'));
    const ports = { temporal: await freePort(), gateways: [await freePort(), await freePort()] };
    const stack = new SoakStack(settings, dataDir, ports);
    try {
      await stack.restart('temporal', 0);
      await Promise.all([compiledGateway(), compile('bench/soak/catalog.ts', CATALOG)]);
      await Promise.all([
        stack.startArtifactWorker(),
        ...stack.workers.map((_, i) => stack.restart('worker', i)),
        ...stack.gateways.map((_, i) => stack.restart('gateway', i)),
      ]);
    } catch (err) {
      await stack.close();
      throw err;
    }
    return stack;
  }

  get temporalAddress(): string {
    return `127.0.0.1:${this.ports.temporal}`;
  }

  /** How many processes of `kind` there are to pick from. */
  count(kind: FaultKind): number {
    if (kind === 'worker') return this.workers.length;
    return kind === 'gateway' ? this.gateways.length : 1;
  }

  /** SIGKILL: no shutdown of its own, as a crash or an OOM kill ends it. */
  async kill(kind: FaultKind, index: number): Promise<void> {
    if (kind === 'temporal') {
      const server = this.temporal;
      this.temporal = undefined;
      if (server?.pid) process.kill(server.pid, 'SIGKILL');
      await server?.exited;
      return;
    }
    const list = kind === 'worker' ? this.workers : this.gateways;
    const process_ = list[index];
    list[index] = undefined;
    await process_?.stop('SIGKILL');
  }

  /** Starts it again (or for the first time) where it was; resolves once it is ready. */
  async restart(kind: FaultKind, index: number): Promise<void> {
    if (kind === 'temporal') this.temporal = await this.startTemporal();
    else if (kind === 'worker') this.workers[index] = await this.startWorker();
    else this.gateways[index] = await this.startGateway(index);
  }

  /**
   * The dev server on its database file. A dev server killed mid-write sometimes comes back unable
   * to read its namespace (SQLite "interrupted") for as long as it runs: such a one is started
   * again, as an operator would, within the same bound.
   */
  private async startTemporal(): Promise<DevServer> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const start = DevServer.start({
        port: this.ports.temporal,
        dbFilename: join(this.dataDir, 'temporal.db'),
        readyTimeoutMs: Math.min(30_000, Math.max(1_000, deadline - Date.now())),
      });
      try {
        return await start;
      } catch (err) {
        if (Date.now() >= deadline) throw err;
      }
    }
  }

  private async startArtifactWorker(): Promise<void> {
    this.artifactWorker = await startTestProcess({
      name: 'artifact worker',
      command: process.execPath,
      args: ['--import', 'tsx', 'test/fixtures/artifacts-worker.ts'],
      env: {
        TEMPORAL_ADDRESS: this.temporalAddress,
        TEMPORAL_TASK_QUEUE: this.artifactQueue,
        MCP_ARTIFACT_DIR: this.artifactDir,
      },
      readyText: 'worker: polling task queue',
      ...BENCH_CHILD,
    });
  }

  private get artifactDir(): string {
    return join(this.dataDir, 'artifacts');
  }

  private startWorker(): Promise<TestProcess> {
    return startTestProcess({
      name: 'worker',
      command: process.execPath,
      args: ['--import', 'tsx', 'worker/main.ts'],
      env: {
        TEMPORAL_ADDRESS: this.temporalAddress,
        TEMPORAL_TASK_QUEUE: this.taskQueue,
        MCP_DATA_DIR: this.dataDir,
        // One mining thread a worker: the soak measures the gateway, not the miner.
        MINER_THREADS: '1',
      },
      readyText: 'worker: polling task queue',
      ...BENCH_CHILD,
    });
  }

  private async startGateway(index: number): Promise<GatewayProcess> {
    return startGatewayProcess({
      temporalAddress: this.temporalAddress,
      taskQueue: this.taskQueue,
      waitBudgetMs: this.settings.waitBudgetMs,
      nodeArgs: await compiledGateway(),
      port: this.ports.gateways[index] as number,
      env: {
        MCP_SERVER_SECRET: this.secret,
        MCP_TOOLS_FILE: CATALOG,
        SOAK_ARTIFACT_TASK_QUEUE: this.artifactQueue,
        MCP_ARTIFACT_DIR: this.artifactDir,
        MCP_AUTH_TOKENS: this.principals.map((p) => `${p.name}:${p.token}`).join(','),
        MCP_DATA_DIR: this.dataDir,
        MCP_POLL_INTERVAL_MS: '500',
        MCP_POLL_INPUT_INTERVAL_MS: '500',
        // The product's default cap (the bench turns it off): it holds under the faults too.
        MCP_MAX_RUNNING_TASKS: '100',
      },
    });
  }

  async close(): Promise<void> {
    await Promise.all([
      ...this.gateways.map((g) => g?.stop().catch(() => {})),
      ...this.workers.map((w) => w?.stop().catch(() => {})),
      this.artifactWorker?.stop().catch(() => {}),
    ]);
    rmSync(CATALOG, { force: true });
    await this.temporal?.stop().catch(() => {});
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
