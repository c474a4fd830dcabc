// Runs `gateway/main.ts` as a real child process on a given port, as operators run it: for tests
// that kill and restart the gateway.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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
  const child = spawn(process.execPath, ['--import', 'tsx', 'gateway/main.ts'], {
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
