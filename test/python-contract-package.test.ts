// The contract helper for Python authors as they get it: python/temporal-mcp-contract built as a
// wheel, installed with examples/python-worker's requirements into a venv of its own, and that
// example's worker (pyBuildReport, built on temporal_mcp_contract) serving its catalog tool through
// the gateway: progress, an input round, its result.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnTestProcess, type TestProcess } from './support/child-process.ts';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { driveInputRound } from './support/task-round.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/python-worker');

let folder: string;
let python: string;
let wheel: string;
let temporal: TestTemporal;
let worker: TestProcess;
let gateway: TestGateway;

/** A venv in `folder` with the helper's wheel (built here) and the example's requirements. */
async function installHelper(): Promise<void> {
  await run('python3', ['-m', 'venv', join(folder, 'venv')]);
  python = join(folder, 'venv/bin/python');
  const pip = [python, '-m', 'pip', '--disable-pip-version-check', '--quiet'] as const;
  const wheels = join(folder, 'wheels');
  // Built from a copy: the build writes its scratch folders (build/, *.egg-info) beside the sources.
  const sources = join(folder, 'temporal-mcp-contract');
  cpSync(join(ROOT, 'python/temporal-mcp-contract'), sources, { recursive: true });
  await run(pip[0], [...pip.slice(1), 'wheel', '--no-deps', '--wheel-dir', wheels, sources]);
  wheel = join(wheels, readdirSync(wheels)[0] as string);
  await run(pip[0], [...pip.slice(1), 'install', wheel, '-r', join(EXAMPLE, 'requirements.txt')]);
}

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'python-contract-'));
  const installed = installHelper();
  installed.catch(() => {});
  temporal = await startTestTemporal();
  await installed;
  worker = spawnTestProcess({
    name: 'the python example worker',
    command: python,
    args: ['worker.py'],
    cwd: EXAMPLE,
    env: { ...temporal.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    readyText: 'python worker: polling task queue',
    readyTimeoutMs: 60_000,
  });
  await worker.ready;
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: 'not-used-by-the-catalog',
    env: { MCP_TOOLS_FILE: join(EXAMPLE, 'catalog.yaml') },
  });
});

after(async () => {
  await gateway?.close();
  await worker?.stop('SIGINT');
  await temporal?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test('the helper is the wheel installed in the venv, not a file of the repository', async () => {
  assert.match(wheel, /temporal_mcp_contract-\d+\.\d+\.\d+-py3-none-any\.whl$/);
  const { stdout } = await run(python, ['-c', 'import temporal_mcp_contract as c; print(c.__file__)'], {
    cwd: folder,
  });
  assert.match(
    stdout.trim(),
    /\/venv\/lib\/python3\.\d+\/site-packages\/temporal_mcp_contract\/__init__\.py$/,
  );
});

test("the example's workflow through the gateway: progress, an input round, its result", async () => {
  const { done, request } = await driveInputRound(gateway.url, {
    tool: 'start_py_report',
    arguments: { year: 2025 },
    progress: /^Month \d+ of 12$/,
    key: 'publish-1',
    answer: { action: 'accept', content: { ok: true } },
  });
  assert.equal(request?.params.message, 'Publish the 2025 report?');
  const result = done.result as { structuredContent: Record<string, unknown>; isError?: boolean };
  assert.equal(result.isError, undefined);
  assert.deepEqual(result.structuredContent.result, { url: 'https://reports.example/2025' });
});
