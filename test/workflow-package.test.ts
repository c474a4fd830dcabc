// The workflow side of the package as a Temporal team gets it: a fresh TypeScript project
// (test/fixtures/workflow-package: its own worker and workflow, importing `temporal-mcp-gateway/
// workflow`) installs the packed tarball with its Temporal dependencies, bundles its workflow with
// the package's McpTool in it, and serves it on its own task queue; the gateway serves it as a
// catalog tool, progress and an input round included, to its result. The project's installed size
// is printed, and it type-checks under --strict against the installed declarations. Apart, a
// project holding only what the workflow side needs (the tarball without its peers, and
// @temporalio/workflow) type-checks the workflow under `strict` without skipLibCheck, the package
// adding no error to those of @temporalio/workflow's own declarations.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnTestProcess, type TestProcess } from './support/child-process.ts';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { hostTypeCheck, installedSize, installPacked } from './support/packed-package.ts';
import { driveInputRound } from './support/task-round.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/workflow-package/', import.meta.url));
const TASK_QUEUE = 'workflow-package';

let temporal: TestTemporal;
let folder: string;
let worker: TestProcess;
let gateway: TestGateway;
/** The workflow side's own project: the tarball (no peers) and @temporalio/workflow, installed meanwhile. */
let workflowOnly: { folder: string; installed: Promise<void> };

before(async () => {
  const only = mkdtempSync(join(tmpdir(), 'workflow-only-'));
  for (const file of ['workflows.ts', 'tsconfig.workflow-only.json'])
    copyFileSync(join(FIXTURE, file), join(only, file));
  workflowOnly = {
    folder: only,
    installed: installPacked(only, ['@temporalio/workflow@~1.24.0'], { withoutPeers: true }),
  };
  workflowOnly.installed.catch(() => {});
  folder = mkdtempSync(join(tmpdir(), 'workflow-package-'));
  for (const file of ['package.json', 'tsconfig.json', 'workflows.ts', 'worker.ts'])
    copyFileSync(join(FIXTURE, file), join(folder, file));
  const installed = installPacked(folder);
  installed.catch(() => {});
  temporal = await startTestTemporal();
  await installed;
  worker = spawnTestProcess({
    name: 'the project worker',
    command: process.execPath,
    args: ['worker.ts'],
    cwd: folder,
    env: { ...temporal.env, TEMPORAL_TASK_QUEUE: TASK_QUEUE },
    readyText: `polling ${TASK_QUEUE}`,
    readyTimeoutMs: 120_000,
  });
  await worker.ready;
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: 'not-used-by-the-catalog',
    env: { MCP_TOOLS_FILE: join(FIXTURE, 'catalog.yaml') },
  });
});

after(async () => {
  await gateway?.close();
  await worker?.stop('SIGTERM');
  await temporal?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
  await workflowOnly?.installed.catch(() => {});
  if (workflowOnly) rmSync(workflowOnly.folder, { recursive: true, force: true });
});

test('the installed workflow side imports nothing but @temporalio/workflow', (t) => {
  const code = readFileSync(
    join(folder, 'node_modules/temporal-mcp-gateway/dist/package/workflow.js'),
    'utf8',
  );
  const imported = new Set(
    [...code.matchAll(/\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/g)].map((m) => m[1] ?? m[2]),
  );
  assert.deepEqual([...imported], ['@temporalio/workflow']);
  t.diagnostic(`workflow author installed size: ${installedSize(folder).text}`);
});

test('the project type-checks under --strict against the installed declarations', async () => {
  // The repository's compiler; everything it reads is the project's (its node_modules, its tsconfig).
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: folder });
});

test("a project with only the workflow side's needs type-checks its workflow under strict without skipLibCheck: no error of the package's", async (t) => {
  await workflowOnly.installed;
  const present = (name: string) =>
    existsSync(join(workflowOnly.folder, 'node_modules', name, 'package.json'));
  assert.equal(present('@temporalio/worker'), false, 'no worker in a workflow-only project');
  const { errors, added, named } = await hostTypeCheck(
    workflowOnly.folder,
    'tsconfig.workflow-only.json',
    (entries) => entries.filter((entry) => entry.startsWith('workflows/')),
  );
  assert.deepEqual(named, ['@temporalio/workflow']);
  assert.deepEqual(added, [], errors.join('\n'));
  // @temporalio/workflow 1.24's declarations fail this check by themselves, with or without the package.
  for (const line of errors) t.diagnostic(`theirs: ${line}`);
});

test("the project's workflow through the gateway: progress, an input round, its result", async () => {
  const { done, request } = await driveInputRound(gateway.url, {
    tool: 'draft_summary',
    arguments: { text: 'durable tools', steps: 3 },
    progress: /^Summarising, step \d of 3$/,
    key: 'approve-1',
    answer: { action: 'accept', content: { editor: 'ada' } },
  });
  assert.equal(request?.method, 'elicitation/create');
  assert.equal(request?.params.message, 'Publish the summary of 13 characters?');
  const result = done.result as { structuredContent: Record<string, unknown>; isError?: boolean };
  assert.equal(result.isError, undefined);
  assert.deepEqual(result.structuredContent.result, { summary: 'DURABLE TOOLS', approvedBy: 'ada' });
});
