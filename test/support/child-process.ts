// A process a test or a bench starts (from the repository root by default): its output kept, ready
// once it prints its ready line, and a ready that fails with that output when the process exits
// first or the deadline passes.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '../../common/poll.ts';
import type { ExitInfo } from '../../launcher/managed-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** How often the output is looked at for the ready line. */
const READY_POLL_MS = 25;
/** How much of an output file output() returns: its end. */
const FILE_TAIL_CHARS = 20_000;

export interface TestProcessOptions {
  /** How errors name it: "gateway", "worker", … */
  name: string;
  command: string;
  args: string[];
  /** Default: the repository root. */
  cwd?: string;
  /** Merged over this process's environment. */
  env?: Record<string, string>;
  /** Output that means it is ready. */
  readyText: string;
  readyTimeoutMs: number;
  /**
   * "pipe" (default): through pipes into this process, kept whole. "file": into a file of its own
   * (output() reads its end), so this process's event loop never handles the child's log lines: a
   * bench, which times every call on that loop, does not measure its children's logging, just as a
   * container's logs are not its clients' business.
   */
  output?: 'pipe' | 'file';
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
  const file = options.output === 'file' ? outputFile() : undefined;
  const child = spawn(options.command, options.args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', file?.fd ?? 'pipe', file?.fd ?? 'pipe'],
  });
  file?.closeFd();
  let piped = '';
  let spawnError = '';
  const output = () => `${file ? file.read() : piped}${spawnError}`;
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (chunk: Buffer) => {
      piped += chunk.toString();
    });
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // A spawn that fails (a missing executable) emits 'error' and never 'exit'.
    child.once('error', (err) => {
      spawnError += `spawn failed: ${err.message}\n`;
      if (child.pid === undefined) resolve({ code: 127, signal: null });
    });
  });
  const exitedFirst = new AbortController();
  exited.then(({ code, signal }) => {
    // A ready line printed just before the exit still counts: the next look finds it.
    if (output().includes(options.readyText)) return;
    exitedFirst.abort(
      new Error(`${options.name} exited (code ${code}, signal ${signal}) before it was ready:\n${output()}`),
    );
  });
  const ready = pollUntil(() => (output().includes(options.readyText) ? true : undefined), {
    timeoutMs: options.readyTimeoutMs,
    intervalMs: READY_POLL_MS,
    signal: exitedFirst.signal,
    timeoutError: () => new Error(`${options.name} not ready in ${options.readyTimeoutMs} ms:\n${output()}`),
  }).then(() => {});
  ready.catch(() => {});
  return {
    child,
    output,
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
      file?.remove();
      return { ...info, killed };
    },
  };
}

/** spawnTestProcess, resolved once it is ready; one that does not get ready is stopped, then the error thrown. */
export async function startTestProcess(options: TestProcessOptions): Promise<TestProcess> {
  const started = spawnTestProcess(options);
  await started.ready.catch(async (err: unknown) => {
    await started.stop();
    throw err;
  });
  return started;
}

/** A file in a folder of its own for a child's stdout and stderr, removed by remove(). */
function outputFile() {
  const dir = mkdtempSync(join(tmpdir(), 'test-process-'));
  const path = join(dir, 'output.log');
  const fd = openSync(path, 'a');
  return {
    fd,
    /** The child has its own copy of the descriptor once spawned. */
    closeFd: () => closeSync(fd),
    read(): string {
      try {
        return readFileSync(path, 'utf8').slice(-FILE_TAIL_CHARS);
      } catch {
        return '';
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
