// `npm start`: everything on one machine. A Temporal dev server (unless TEMPORAL_ADDRESS is set;
// the pinned Temporal CLI is installed first if it is missing), then the worker and the gateway as
// child processes, their logs prefixed by process name.
// Ctrl-C / SIGTERM stops the children first, then the dev server; if any of them dies on its own,
// the rest are stopped and `npm start` exits non-zero.
// First: an unsupported Node.js is told what it needs before anything starts.
import '../common/node-check.ts';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '../common/poll.ts';
import { GATEWAY_NODE_FLAGS } from '../gateway/runtime-flags.ts';
import { loadSettings } from '../gateway/settings/index.ts';
import { ensureLocalCodecKeys } from './codec-keys.ts';
import { ensureJaeger, type Jaeger, startJaeger } from './jaeger.ts';
import { linePrefixer, processLabel } from './line-prefixer.ts';
import { type LocalTemporal, startLocalTemporal } from './local-temporal.ts';
import { ManagedProcess } from './managed-process.ts';
import { readyBanner } from './start-banner.ts';
import {
  codecEndpoint,
  codecEnv,
  gatewayLogEnv,
  jaegerTraceEnv,
  localHost,
  type StartConfig,
  startConfig,
} from './start-config.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LABEL_WIDTH = 8;
const READY_TIMEOUT_MS = 120_000;
const CHILD_GRACE_MS = 15_000;

const emit = (line: string) => process.stdout.write(`${line}\n`);
const say = (message: string) => {
  for (const line of message.split('\n')) emit(`${processLabel('start', LABEL_WIDTH)}${line}`);
};

const children: ManagedProcess[] = [];
let temporalStarting: Promise<LocalTemporal | undefined> = Promise.resolve(undefined);
let temporalStarted: LocalTemporal | undefined;
let jaegerStarted: Jaeger | undefined;
let stopping: Promise<void> | undefined;
/** Stops a Temporal CLI install in progress: a Ctrl-C does not wait for the build. */
const installing = new AbortController();

/** Stops everything once (children first, then the dev server) and exits with `code`. */
function shutdown(reason: string, code: number): Promise<void> {
  if (stopping) return stopping;
  say(`stopping (${reason})...`);
  stopping = (async () => {
    installing.abort();
    await Promise.all(
      children.map(async (child) => {
        if (!child.running) return;
        const { killed } = await child.stop(CHILD_GRACE_MS);
        if (killed) say(`${child.name} did not stop within ${CHILD_GRACE_MS} ms and was killed`);
      }),
    );
    const temporal = await temporalStarting.catch(() => undefined);
    await temporal?.stop();
    await jaegerStarted?.stop();
    say('stopped');
    process.exit(code);
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    // npm forwards the terminal's Ctrl-C as well, so a second signal is expected and ignored.
    void shutdown(signal, 0);
  });
}

/** How a child Node.js process is started: its arguments, environment, flags and line watcher. */
interface NodeChild {
  args?: string[];
  env: NodeJS.ProcessEnv;
  onLine?: (line: string) => void;
  nodeFlags?: string[];
}

function spawnNode(name: string, script: string, child: NodeChild) {
  const spawned = ManagedProcess.spawn({
    name,
    command: process.execPath,
    args: [...(child.nodeFlags ?? []), '--import', 'tsx', script, ...(child.args ?? [])],
    cwd: ROOT,
    env: child.env,
    prefix: processLabel(name, LABEL_WIDTH),
    emit,
    onLine: child.onLine,
  });
  children.push(spawned);
  return spawned;
}

/** Stops everything if `child` exits while it is meant to be running. */
function superviseExit(name: string, exited: Promise<string>): void {
  exited.then((how) => {
    if (!stopping) void shutdown(`${name} ${how}`, 1);
  });
}

function describeExit({ code, signal }: { code: number | null; signal: NodeJS.Signals | null }): string {
  return `exited with ${signal ?? `code ${code}`}`;
}

async function waitForGateway(config: StartConfig, gateway: ManagedProcess, deadline: number): Promise<void> {
  const url = `http://${localHost(config.mcpHost)}:${config.mcpPort}/readyz`;
  const exited = new AbortController();
  gateway.exited.then(() => exited.abort(new Error('the gateway exited before it was ready')));
  await pollUntil(
    async () => {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return true;
      throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`);
    },
    {
      timeoutMs: deadline - Date.now(),
      intervalMs: 250,
      signal: exited.signal,
      timeoutError: (last) =>
        new Error(
          `the gateway was not ready at ${url} within ${READY_TIMEOUT_MS} ms (${last ? (last as Error).message : 'no answer yet'})`,
        ),
    },
  );
}

/** The dev server (unless TEMPORAL_ADDRESS is set), installed first when missing. */
function startTemporal(config: StartConfig): void {
  if (!config.devServer) return;
  const temporalOutput = linePrefixer(processLabel('temporal', LABEL_WIDTH), emit);
  const installOutput = linePrefixer(processLabel('install', LABEL_WIDTH), emit);
  temporalStarting = startLocalTemporal({
    ...config.devServer,
    ...(config.codec ? { uiCodecEndpoint: codecEndpoint(config) } : {}),
    onOutput: (chunk) => temporalOutput.write(chunk),
    onInstallOutput: (chunk) => installOutput.write(chunk),
    say,
    signal: installing.signal,
  });
}

/** MCP_START_JAEGER=true: Jaeger beside the rest (built first when missing). */
async function startTraces(config: StartConfig): Promise<void> {
  if (!config.jaeger) return;
  const jaegerOutput = linePrefixer(processLabel('jaeger', LABEL_WIDTH), emit);
  const binary = await ensureJaeger((chunk) => jaegerOutput.write(chunk));
  if (stopping) return;
  jaegerStarted = await startJaeger({
    binary,
    host: localHost(config.mcpHost),
    ...config.jaeger,
    onOutput: (chunk) => jaegerOutput.write(chunk),
  });
  superviseExit(
    'Jaeger',
    new Promise((resolve) => jaegerStarted?.child.once('exit', () => resolve('exited'))),
  );
}

/** What the worker and the gateway both run with. */
function childEnv(config: StartConfig, address: string, bundlePath: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(jaegerStarted ? jaegerTraceEnv(process.env, jaegerStarted.otlpEndpoint) : {}),
    TEMPORAL_ADDRESS: address,
    WORKFLOW_BUNDLE_PATH: bundlePath,
    MCP_HOST: config.mcpHost,
    MCP_PORT: String(config.mcpPort),
    ...(config.codec
      ? codecEnv(process.env, config.devServer?.uiPort, () => ensureLocalCodecKeys(config.dataDir))
      : {}),
  };
}

/** The worker and the gateway; resolves once the worker polls and the gateway is ready, by `deadline`. */
async function startChildren(config: StartConfig, env: NodeJS.ProcessEnv, deadline: number): Promise<void> {
  let workerReady: () => void = () => {};
  const workerReadyPromise = new Promise<void>((resolve) => {
    workerReady = resolve;
  });
  const worker = spawnNode('worker', 'worker/main.ts', {
    env,
    onLine: (line) => {
      if (line.includes('worker: polling task queue')) workerReady();
    },
  });
  const gatewayEnv = { ...env, ...gatewayLogEnv(process.env, Boolean(process.stdout.isTTY)) };
  const gateway = spawnNode('gateway', 'gateway/main.ts', { env: gatewayEnv, nodeFlags: GATEWAY_NODE_FLAGS });
  superviseExit('the worker', worker.exited.then(describeExit));
  superviseExit('the gateway', gateway.exited.then(describeExit));
  const workerTimeout = new Promise<never>((_, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the worker did not start polling within ${READY_TIMEOUT_MS} ms`)),
      Math.max(0, deadline - Date.now()),
    );
    workerReadyPromise.then(() => clearTimeout(timer));
  });
  await Promise.all([
    Promise.race([workerReadyPromise, workerTimeout]),
    waitForGateway(config, gateway, deadline),
  ]);
}

async function main(): Promise<void> {
  const config = startConfig();
  mkdirSync(config.dataDir, { recursive: true });
  // Bundle the workflows while the dev server starts, so the worker runs the working tree's code.
  const bundlePath = config.workflowBundlePath ?? join(config.dataDir, 'workflow-bundle.js');
  const bundler = config.workflowBundlePath
    ? undefined
    : spawnNode('bundle', 'scripts/build-workflow-bundle.ts', { args: [bundlePath], env: process.env });
  startTemporal(config);
  const temporal = await temporalStarting;
  // Counted from here: a first run may spend minutes installing the Temporal CLI before this.
  const deadline = Date.now() + READY_TIMEOUT_MS;
  temporalStarted = temporal;
  if (stopping) return;
  if (temporal) superviseExit('the Temporal dev server', temporal.exited);
  const address = temporal?.address ?? (config.temporalAddress as string);
  if (bundler) {
    const bundled = await bundler.exited;
    if (stopping) return;
    if (bundled.code !== 0) throw new Error(`bundling the workflows failed (${describeExit(bundled)})`);
  }
  await startTraces(config);
  if (stopping) return;
  const env = childEnv(config, address, bundlePath);
  await startChildren(config, env, deadline);
  if (stopping) return;
  const banner = readyBanner({
    config,
    root: ROOT,
    address,
    temporal,
    jaeger: jaegerStarted,
    served: await servedCatalog(env),
  });
  for (const line of banner) say(line);
}

/** The catalog the gateway serves, read the way the gateway reads it (undefined if it cannot be). */
async function servedCatalog(env: NodeJS.ProcessEnv) {
  try {
    return await loadSettings(env);
  } catch {
    return undefined;
  }
}

// Last resort when `npm start` goes down without the orderly shutdown (an exception): leave no
// child running on its own.
process.on('exit', () => {
  installing.abort();
  for (const child of children) if (child.running) child.signal('SIGTERM');
  temporalStarted?.kill();
  jaegerStarted?.child.kill('SIGTERM');
});

main().catch((err) => {
  // Once stopping, a wait cut short by the stop is no news.
  if (stopping) return;
  const message = (err as Error).message;
  say(`error: ${message}`);
  if (message.includes('start-dev exited early'))
    say(
      'If a port is taken, choose others with TEMPORAL_PORT / TEMPORAL_UI_PORT, or set TEMPORAL_ADDRESS to use a running Temporal.',
    );
  void shutdown('start failed', 1);
});
