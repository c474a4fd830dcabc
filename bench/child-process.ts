// Bench children (workers, the gateway, the peer): started with a ready line to wait for, stopped by
// their own pid. Their output goes to a file, not through a pipe into this process: the bench's own
// event loop, which times every call, never handles a child's log lines (a gateway writes a few per
// request), just as a container's logs are not its clients' business.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

const READY_POLL_MS = 25;
const KEEP_CHARS = 20_000;

export async function startChild(spec: ChildSpec): Promise<BenchChild> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-child-'));
  const logFile = join(dir, 'output.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const output = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-KEEP_CHARS);
    } catch {
      return '';
    }
  };
  const exited = once(child, 'exit');
  let exitCode: string | undefined;
  exited.then(([code, signal]) => {
    exitCode = `code ${code}, signal ${signal}`;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const timeoutMs = spec.readyTimeoutMs ?? 90_000;
  const deadline = performance.now() + timeoutMs;
  try {
    // Polls the file with a deadline: the child says when it is ready, and only in its output.
    while (!output().includes(spec.readyText)) {
      if (exitCode) throw new Error(`${spec.name} exited (${exitCode}) before it was ready`);
      if (performance.now() > deadline) throw new Error(`${spec.name} not ready in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
    }
  } catch (err) {
    const seen = output();
    await stop();
    throw new Error(`${(err as Error).message}:\n${seen}`);
  }
  return { child, pid: child.pid as number, output, stop };
}
