// Bench children (workers, the gateway, the peer): started with a ready line to wait for, their
// output kept for error messages, stopped by their own pid.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface BenchChild {
  child: ChildProcess;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

export interface ChildSpec {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Resolves the start once the output contains this text. */
  readyText: string;
  readyTimeoutMs?: number;
}

export async function startChild(spec: ChildSpec): Promise<BenchChild> {
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(force);
  };
  const timeoutMs = spec.readyTimeoutMs ?? 90_000;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${spec.name} not ready in ${timeoutMs} ms`)),
        timeoutMs,
      );
      const check = () => {
        if (output.includes(spec.readyText)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', check);
      child.stderr?.on('data', check);
      exited.then(([code, signal]) => {
        clearTimeout(timer);
        reject(new Error(`${spec.name} exited (code ${code}, signal ${signal}) before it was ready`));
      });
    });
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}:\n${output}`);
  }
  return { child, pid: child.pid as number, output: () => output, stop };
}
