// A process a test starts from the repository root: its output kept, ready once it prints its ready
// line, and a ready that fails with that output when the process exits first or the deadline passes.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ExitInfo } from '../../launcher/managed-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface TestProcessOptions {
  /** How errors name it: "gateway", "worker", … */
  name: string;
  command: string;
  args: string[];
  /** Merged over this process's environment. */
  env: Record<string, string>;
  /** Output that means it is ready. */
  readyText: string;
  readyTimeoutMs: number;
}

export interface TestProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once it printed `readyText`; rejects if it exits first or the deadline passes. */
  ready: Promise<void>;
  exited: Promise<ExitInfo>;
  /**
   * Sends `signal` unless it has already exited, then SIGKILL if it is still there after `graceMs`;
   * resolves with how it exited, and whether it had to be killed.
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<ExitInfo & { killed: boolean }>;
}

export function spawnTestProcess(options: TestProcessOptions): TestProcess {
  const child = spawn(options.command, options.args, {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // A spawn that fails (a missing executable) emits 'error' and never 'exit'.
    child.once('error', (err) => {
      output += `spawn failed: ${err.message}\n`;
      if (child.pid === undefined) resolve({ code: 127, signal: null });
    });
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.name} not ready in ${options.readyTimeoutMs} ms:\n${output}`)),
      options.readyTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(options.readyText)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(`${options.name} exited (code ${code}, signal ${signal}) before it was ready:\n${output}`),
      );
    });
  });
  ready.catch(() => {});
  return {
    child,
    output: () => output,
    ready,
    exited,
    async stop(signal = 'SIGTERM', graceMs = 10_000) {
      let killed = false;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => {
        killed = child.kill('SIGKILL');
      }, graceMs);
      const info = await exited;
      clearTimeout(timer);
      return { ...info, killed };
    },
  };
}
