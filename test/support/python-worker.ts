// Runs the Python SDK worker of test/fixtures/python as a real child process, in the venv made by
// scripts/python-test-env.sh (CI passes its python as PYTHON_TEST_ENV).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ExitInfo, ManagedProcess } from '../../lib/managed-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKER_SCRIPT = fileURLToPath(new URL('../fixtures/python/worker.py', import.meta.url));
const READY_LINE = 'python-worker: polling ';
const STOP_GRACE_MS = 10_000;

export interface PythonWorker {
  /** Resolves once the worker said it polls its queue; rejects if it exits first or the deadline passes. */
  ready: Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
  stop(): Promise<ExitInfo & { killed: boolean }>;
  /** Everything the worker printed so far (stdout and stderr), line by line. */
  output(): string;
}

let venvPython: string | undefined;

/** The venv's python: PYTHON_TEST_ENV, else made (once per test process) by the setup script. */
function pythonPath(): string {
  venvPython ??=
    process.env.PYTHON_TEST_ENV ||
    execFileSync('bash', ['scripts/python-test-env.sh'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .at(-1);
  if (!venvPython) throw new Error('scripts/python-test-env.sh printed no python path');
  return venvPython;
}

/** Starts the worker with `env` (TEMPORAL_TASK_QUEUE at least) merged over this process's environment. */
export function startPythonWorker(env: Record<string, string>, readyTimeoutMs = 60_000): PythonWorker {
  let output = '';
  let onReady = () => {};
  const child = ManagedProcess.spawn({
    name: 'python-worker',
    command: pythonPath(),
    args: [WORKER_SCRIPT],
    cwd: ROOT,
    env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', ...env },
    prefix: '',
    emit: (line) => {
      output += `${line}\n`;
    },
    onLine: (line) => {
      if (line.startsWith(READY_LINE)) onReady();
    },
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`python worker not ready in ${readyTimeoutMs} ms:\n${output}`)),
      readyTimeoutMs,
    );
    onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    child.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(`python worker exited (code ${code}, signal ${signal}) before it was ready:\n${output}`),
      );
    });
  });
  ready.catch(() => {});
  return { ready, stop: () => child.stop(STOP_GRACE_MS), output: () => output };
}
