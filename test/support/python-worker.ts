// Runs the Python SDK worker of test/fixtures/python as a real child process, in the venv made by
// scripts/python-test-env.sh (CI passes its python as PYTHON_TEST_ENV).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnTestProcess, type TestProcess } from './child-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKER_SCRIPT = fileURLToPath(new URL('../fixtures/python/worker.py', import.meta.url));

export type PythonWorker = Pick<TestProcess, 'ready' | 'stop' | 'output'>;

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
  return spawnTestProcess({
    name: 'python worker',
    command: pythonPath(),
    args: [WORKER_SCRIPT],
    env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', ...env },
    readyText: 'python-worker: polling ',
    readyTimeoutMs,
  });
}
