// Runs `worker/main.ts` as a real child process, as operators run it.
import type { ChildProcess } from 'node:child_process';
import type { ExitInfo } from '../../launcher/managed-process.ts';
import { spawnTestProcess } from './child-process.ts';

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the worker printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once the worker said it polls its queue; rejects if it exits first or the deadline passes. */
  ready: Promise<void>;
  /** Sends `signal` and waits for the process to exit (SIGKILL after 10 s); returns how it exited. */
  stop(signal?: NodeJS.Signals): Promise<ExitInfo & { killed: boolean }>;
}

export function startWorker(env: Record<string, string>, readyTimeoutMs = 60_000): WorkerProcess {
  return spawnTestProcess({
    name: 'worker',
    command: process.execPath,
    args: ['--import', 'tsx', 'worker/main.ts'],
    env,
    readyText: 'worker: polling task queue',
    readyTimeoutMs,
  });
}
