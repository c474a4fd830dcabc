// Runs third-party MCP clients as child processes against a test gateway: the Python client
// scripts of test/fixtures/python/clients (in the venv of scripts/python-test-env.sh; CI passes
// its python as PYTHON_TEST_ENV) and the MCP Inspector's CLI (a devDependency).
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENTS_DIR = fileURLToPath(new URL('../fixtures/python/clients/', import.meta.url));
const INSPECTOR_BIN = join(ROOT, 'node_modules', '.bin', 'mcp-inspector');

export interface ProcessAnswer {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a program to its end; resolves whatever its exit code (a timeout kills it: code null). */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ProcessAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { ...options, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

let venvPython: Promise<string> | undefined;

/** The test venv's python: PYTHON_TEST_ENV, else made (once per process) by the setup script. */
export function testPython(): Promise<string> {
  venvPython ??= (async () => {
    if (process.env.PYTHON_TEST_ENV) return process.env.PYTHON_TEST_ENV;
    const answer = await run('bash', ['scripts/python-test-env.sh'], {
      cwd: ROOT,
      env: process.env,
      timeoutMs: 600_000,
    });
    const python = answer.stdout.trim().split('\n').at(-1);
    if (answer.code !== 0 || !python)
      throw new Error(`scripts/python-test-env.sh failed (${answer.code}):\n${answer.stderr}`);
    return python;
  })();
  return venvPython;
}

/** What the job sizes and addresses of a client script are (see clients/harness.py). */
export interface ClientPlan {
  url: string;
  /** A gateway with a long wait budget: small jobs answer inline there. */
  inline_url: string;
  slow: Record<string, unknown>;
  approval: Record<string, unknown>;
  /** Mining past the wait budget, then a question: the task exists before the run asks. */
  approval_later: Record<string, unknown>;
  endless: Record<string, unknown>;
  deadline_s: number;
}

/** One scenario's observations, or `error` when it raised. */
export type Scenario = Record<string, unknown> & { error?: string; seconds: number };

export interface ClientAnswer {
  client: string;
  version: string;
  scenarios: Record<string, Scenario>;
  ms: number;
}

/** Runs `script` with `plan`; fails with its stderr unless it printed its one JSON answer. */
export async function runPythonClient(
  script: string,
  plan: ClientPlan,
  timeoutMs = 120_000,
): Promise<ClientAnswer> {
  const answer = await run(await testPython(), [join(CLIENTS_DIR, script), JSON.stringify(plan)], {
    cwd: CLIENTS_DIR,
    env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    timeoutMs,
  });
  const line = answer.stdout.trim().split('\n').at(-1);
  if (answer.code !== 0 || !line)
    throw new Error(`${script} exited ${answer.code} after ${answer.ms} ms:\n${answer.stderr.slice(-8000)}`);
  return { ...(JSON.parse(line) as Omit<ClientAnswer, 'ms'>), ms: answer.ms };
}

/** The scenario's observations; fails with the client's own error if it raised. */
export function scenario(answer: ClientAnswer, name: string): Scenario {
  const seen = answer.scenarios[name];
  if (!seen) throw new Error(`${answer.client}: no scenario ${name}`);
  if (seen.error) throw new Error(`${answer.client} ${name}: ${seen.error}`);
  return seen;
}

/** A home of its own for the Inspector: its catalog and client config go there, not to ~. */
const inspectorHome = mkdtempSync(join(tmpdir(), 'mcp-inspector-home-'));

export interface InspectorAnswer extends ProcessAnswer {
  /** stdout as JSON (`--format json`), when it parsed. */
  json?: Record<string, unknown>;
}

/** `mcp-inspector --cli <url> <args…> --format json`. */
export async function runInspector(url: URL, args: string[], timeoutMs = 60_000): Promise<InspectorAnswer> {
  const answer = await run(INSPECTOR_BIN, ['--cli', url.href, ...args, '--format', 'json'], {
    cwd: ROOT,
    env: { ...process.env, HOME: inspectorHome, NO_COLOR: '1' },
    timeoutMs,
  });
  try {
    return { ...answer, json: JSON.parse(answer.stdout) as Record<string, unknown> };
  } catch {
    return answer;
  }
}
