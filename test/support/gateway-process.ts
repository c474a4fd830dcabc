// Runs the gateway as a real child process on a given port, as the container runs it (compiled from
// the current sources, with its Node.js flags): for tests that kill and restart the gateway, and
// for the bench.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { GATEWAY_NODE_FLAGS } from '../../gateway/runtime-flags.ts';
import { buildGateway } from '../../scripts/build-gateway.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Inside the repository, so the bundle's imports resolve from its node_modules.
const BUNDLE = fileURLToPath(new URL('../../node_modules/.cache/gateway-under-test.mjs', import.meta.url));

/** `npm run gateway`: the TypeScript sources through tsx, with the gateway's flags. */
export const GATEWAY_UNDER_TSX = [...GATEWAY_NODE_FLAGS, '--import', 'tsx', 'gateway/main.ts'];

let compiled: Promise<string[]> | undefined;

/** Node.js arguments that run the gateway as the container does; compiled once per process. */
export function compiledGateway(): Promise<string[]> {
  compiled ??= buildGateway(BUNDLE).then((bundle) => [...GATEWAY_NODE_FLAGS, bundle]);
  return compiled;
}

export interface GatewayProcess {
  child: ChildProcess;
  url: URL;
  origin: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startGatewayProcess(
  port: number,
  env: Record<string, string>,
  readyTimeoutMs = 30_000,
): Promise<GatewayProcess> {
  const child = spawn(process.execPath, await compiledGateway(), {
    cwd: ROOT,
    env: { ...process.env, MCP_HOST: '127.0.0.1', MCP_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway not ready in ${readyTimeoutMs} ms:\n${output}`)),
      readyTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('gateway: MCP on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`gateway exited before it was ready:\n${output}`));
    });
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    child,
    origin,
    url: new URL('/mcp', origin),
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
