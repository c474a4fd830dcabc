// A real Temporal dev server (`temporal server start-dev`) as a child process: used by the
// test harness and by `npm start`. It registers the search attributes the gateway writes.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Connection } from '@temporalio/client';
import { retryUntil } from '../common/poll.ts';
import { freePort } from './free-port.ts';
import { requireTemporalCli } from './temporal-cli.ts';

export const SEARCH_ATTRIBUTES = {
  McpTool: 'Keyword',
  McpPrincipal: 'Keyword',
  McpTaskStatus: 'Keyword',
  McpTaskId: 'Keyword',
} as const;

/** Task-queue fairness between fairness keys (Temporal 1.29+). */
const FAIRNESS_ARGS = ['--dynamic-config-value', 'matching.enableFairness=true'];

/**
 * New tasks go to one partition of a queue, fairness on or off: matching is fair (or first come,
 * first served) within a partition. Reads keep the default, so tasks a store already holds in
 * others are still served, and polls there are forwarded to it.
 */
const ONE_WRITE_PARTITION = ['--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1'];

export interface DevServerOptions {
  /** The Temporal CLI binary (default: the one requireTemporalCli finds). */
  cli?: string;
  /** SQLite file that keeps the server's state across restarts. */
  dbFilename: string;
  port?: number;
  /** Serve the server's Prometheus metrics on this port (`/metrics`); the CLI's default when absent. */
  metricsPort?: number;
  /** Serve the Web UI on this port; headless when absent. */
  uiPort?: number;
  /** The codec server the Web UI decodes payloads through (`--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
  ip?: string;
  namespace?: string;
  /** The search attributes to register (default: SEARCH_ATTRIBUTES, every one the gateway uses). */
  searchAttributes?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Where the server's own output goes (default: discarded). */
  stdio?: 'ignore' | 'inherit' | 'pipe';
  /** Receives the server's output as it comes (stdout and stderr); overrides `stdio`. */
  onOutput?: (chunk: Buffer) => void;
  /**
   * Task-queue fairness (`matching.enableFairness`, off by default in Temporal): workers serve the
   * principals' runs in turn by fairness key, not in arrival order. On unless false.
   */
  fairness?: boolean;
  /**
   * Runs the server in its own process group, so a Ctrl-C in the terminal reaches only the parent,
   * which can then stop its other children before the server.
   */
  detached?: boolean;
}

export class DevServer {
  private constructor(
    readonly address: string,
    readonly port: number,
    readonly options: DevServerOptions,
    private child: ChildProcess,
  ) {}

  static async start(options: DevServerOptions): Promise<DevServer> {
    const port = options.port ?? (await freePort());
    const ip = options.ip ?? '127.0.0.1';
    const args = [
      'server',
      'start-dev',
      '--ip',
      ip,
      '--port',
      String(port),
      '--db-filename',
      options.dbFilename,
      '--namespace',
      options.namespace ?? 'default',
      '--log-level',
      'error',
    ];
    if (options.metricsPort) args.push('--metrics-port', String(options.metricsPort));
    if (!options.uiPort) args.push('--headless');
    else {
      args.push('--ui-port', String(options.uiPort));
      if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
    }
    if (options.fairness !== false) args.push(...FAIRNESS_ARGS);
    args.push(...ONE_WRITE_PARTITION);
    for (const [name, type] of Object.entries(options.searchAttributes ?? SEARCH_ATTRIBUTES))
      args.push('--search-attribute', `${name}=${type}`);
    const child = spawn(options.cli ?? requireTemporalCli(), args, {
      stdio: options.onOutput ? ['ignore', 'pipe', 'pipe'] : (options.stdio ?? 'ignore'),
      detached: options.detached ?? false,
    });
    if (options.onOutput) {
      child.stdout?.on('data', options.onOutput);
      child.stderr?.on('data', options.onOutput);
    }
    const server = new DevServer(`${ip === '0.0.0.0' ? '127.0.0.1' : ip}:${port}`, port, options, child);
    const exited = once(child, 'exit').then(([code]) => {
      throw new Error(`temporal server start-dev exited early with code ${code}`);
    });
    try {
      await Promise.race([server.waitReady(options.readyTimeoutMs ?? 60_000), exited]);
    } catch (err) {
      await server.stop();
      throw err;
    }
    exited.catch(() => {});
    return server;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Resolves when the server process exits, whoever stopped it. */
  get exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null)
      return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
    return once(child, 'exit').then(([code, signal]) => ({ code, signal }));
  }

  /**
   * Waits until the namespace answers (what every worker asks first) and the search attributes are
   * registered.
   */
  private async waitReady(timeoutMs: number): Promise<void> {
    const namespace = this.options.namespace ?? 'default';
    await retryUntil(
      async () => {
        const connection = await Connection.connect({ address: this.address, connectTimeout: 1_000 });
        try {
          await connection.workflowService.describeNamespace({ namespace });
          const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
          for (const name of Object.keys(this.options.searchAttributes ?? SEARCH_ATTRIBUTES)) {
            if (!customAttributes?.[name]) throw new Error(`search attribute ${name} not registered yet`);
          }
        } finally {
          await connection.close();
        }
      },
      { timeoutMs, maxIntervalMs: 2_000 },
    );
  }

  /** Stops the server (SIGTERM, then SIGKILL after `graceMs`) and waits for it to exit. */
  async stop(graceMs = 5_000): Promise<void> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
