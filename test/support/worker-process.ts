// Runs `worker/main.ts` as a real child process, as operators run it.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the worker printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once the worker said it polls its queue; rejects if it exits first or the deadline passes. */
  ready: Promise<void>;
  /** Sends `signal` and waits for the process to exit; returns its exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startWorker(env: Record<string, string>, readyTimeoutMs = 60_000): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker not ready in ${readyTimeoutMs} ms:\n${output}`)),
      readyTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker: polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exited.then(([code, signal]) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (code ${code}, signal ${signal}) before it was ready:\n${output}`));
    });
  });
  ready.catch(() => {});
  return {
    child,
    output: () => output,
    ready,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code, sig] = await exited;
      return { code, signal: sig };
    },
  };
}
