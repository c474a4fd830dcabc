// The Temporal dev server `npm start` runs: the pinned Temporal CLI, installed first by the install
// script when it is missing (built with Go), else the CLI that `@temporalio/testing` downloads by
// itself (for online machines without Go).
import type { SearchAttributeType } from '@temporalio/common';
import { DevServer, SEARCH_ATTRIBUTES } from './dev-server.ts';
import { ensureTemporalCli, TEMPORAL_CLI_VERSION } from './temporal-cli.ts';

export interface LocalTemporalOptions {
  dbFilename: string;
  port: number;
  uiPort: number;
  /** The codec server the Web UI decodes payloads through (`--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
  /** Receives the server's output. */
  onOutput: (chunk: Buffer) => void;
  /** Receives the install script's messages and progress, when the CLI has to be installed. */
  onInstallOutput: (chunk: Buffer) => void;
  /** Progress messages for the operator. */
  say: (message: string) => void;
  /** Stops an install in progress (and then tries no fallback). */
  signal?: AbortSignal;
}

export interface LocalTemporal {
  address: string;
  uiUrl: string;
  /** How it is run, for the banner. */
  description: string;
  /** Resolves with a reason if the server goes away on its own. */
  exited: Promise<string>;
  stop(): Promise<void>;
  /** Last-resort synchronous kill, for when `npm start` itself is going down hard. */
  kill(): void;
}

export async function startLocalTemporal(options: LocalTemporalOptions): Promise<LocalTemporal> {
  let cli: string;
  try {
    cli = await ensureTemporalCli(options.onInstallOutput, { signal: options.signal });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    return startDownloadedDevServer(options, (err as Error).message);
  }
  return startCliDevServer(cli, options);
}

async function startCliDevServer(cli: string, options: LocalTemporalOptions): Promise<LocalTemporal> {
  const server = await DevServer.start({
    cli,
    dbFilename: options.dbFilename,
    port: options.port,
    uiPort: options.uiPort,
    ...(options.uiCodecEndpoint ? { uiCodecEndpoint: options.uiCodecEndpoint } : {}),
    onOutput: options.onOutput,
    detached: true,
    readyTimeoutMs: 90_000,
  });
  return {
    address: server.address,
    uiUrl: `http://localhost:${options.uiPort}`,
    description: `Temporal CLI dev server (${cli})`,
    exited: server.exited.then(({ code, signal }) => `exited with ${signal ?? `code ${code}`}`),
    stop: () => server.stop(10_000),
    kill() {
      if (server.pid) {
        try {
          process.kill(server.pid, 'SIGTERM');
        } catch {}
      }
    },
  };
}

async function startDownloadedDevServer(
  options: LocalTemporalOptions,
  missing: string,
): Promise<LocalTemporal> {
  options.say(
    `No Temporal CLI v${TEMPORAL_CLI_VERSION}; trying the dev server that @temporalio/testing downloads...`,
  );
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const { defineSearchAttributeKey } = await import('@temporalio/common');
  let env: Awaited<ReturnType<typeof TestWorkflowEnvironment.createLocal>>;
  try {
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        dbFilename: options.dbFilename,
        ip: '127.0.0.1',
        port: options.port,
        ui: true,
        uiPort: options.uiPort,
        ...(options.uiCodecEndpoint ? { extraArgs: ['--ui-codec-endpoint', options.uiCodecEndpoint] } : {}),
        searchAttributes: Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) =>
          defineSearchAttributeKey(name, type.toUpperCase() as SearchAttributeType),
        ),
      },
    });
  } catch (err) {
    throw new Error(`${missing}\nThe download fallback failed as well: ${(err as Error).message}`);
  }
  return {
    address: env.address,
    uiUrl: `http://localhost:${options.uiPort}`,
    description: 'Temporal dev server downloaded by @temporalio/testing',
    exited: new Promise<string>(() => {}),
    stop: () => env.teardown(),
    kill() {},
  };
}
