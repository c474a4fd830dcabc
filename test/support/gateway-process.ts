// Runs the gateway as a real child process on a given port, as the container runs it (compiled from
// the current sources, with its Node.js flags): for tests that kill and restart the gateway, and
// for the bench.
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GATEWAY_NODE_FLAGS } from '../../gateway/runtime-flags.ts';
import { buildGateway } from '../../scripts/build-gateway.ts';
import { spawnTestProcess } from './child-process.ts';

// Inside the repository, so the bundle's imports resolve from its node_modules; one per process, so
// test files run at once (or checkouts sharing node_modules) never load each other's build.
const BUNDLE = fileURLToPath(
  new URL(`../../node_modules/.cache/gateway-under-test-${process.pid}.mjs`, import.meta.url),
);

/** `npm run gateway`: the TypeScript sources through tsx, with the gateway's flags. */
export const GATEWAY_UNDER_TSX = [...GATEWAY_NODE_FLAGS, '--import', 'tsx', 'gateway/main.ts'];

let compiled: Promise<string[]> | undefined;

/** Node.js arguments that run the gateway as the container does; compiled once per process. */
export function compiledGateway(): Promise<string[]> {
  compiled ??= buildGateway(BUNDLE).then((bundle) => {
    process.once('exit', () => rmSync(bundle, { force: true }));
    return [...GATEWAY_NODE_FLAGS, bundle];
  });
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
  const gateway = spawnTestProcess({
    name: 'gateway',
    command: process.execPath,
    args: await compiledGateway(),
    env: { MCP_HOST: '127.0.0.1', MCP_PORT: String(port), ...env },
    readyText: 'gateway: MCP on',
    readyTimeoutMs,
  });
  await gateway.ready;
  const origin = `http://127.0.0.1:${port}`;
  return {
    child: gateway.child,
    origin,
    url: new URL('/mcp', origin),
    output: gateway.output,
    async stop(signal = 'SIGTERM') {
      await gateway.stop(signal);
    },
  };
}
