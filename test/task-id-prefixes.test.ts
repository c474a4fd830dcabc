// A catalog tool named with a dot (`build.v1`, its name its id prefix) against a real dev server:
// with no running-task cap (MCP_MAX_RUNNING_TASKS=0: its ids have no run part) and under the cap,
// each call answers a task id that reads back, polled to its result on both paths, one run per call.
// A start under a prefix whose ids would not read back is refused before anything reaches
// Temporal: no run of it is ever started (a catalog refuses such a tool at load: catalog.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ANONYMOUS } from '../gateway/mcp/handler.ts';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import {
  DEFAULT_CAP,
  startGateway,
  TEST_SERVER_SECRET,
  type TestGateway,
  taskHandle,
} from './support/gateway-server.ts';
import { connectV1, structured } from './support/mcp-clients.ts';
import { rpcResult } from './support/mcp-http.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const ECHO_WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/slow-echo.ts', import.meta.url));
const QUEUE = 'dotted-echo';
const TOOL = 'build.v1';

let temporal: TestTemporal;
let worker: Worker;
let workerRun: Promise<void>;
let connection: NativeConnection;
const dir = mkdtempSync(join(tmpdir(), 'task-id-prefixes-'));
const catalog = join(dir, 'catalog.json');

before(async () => {
  temporal = await startTestTemporal();
  connection = await NativeConnection.connect({ address: temporal.address });
  worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: QUEUE,
    workflowsPath: ECHO_WORKFLOWS,
  });
  workerRun = worker.run();
  const inputSchema = {
    type: 'object',
    properties: { text: { type: 'string' }, ms: { type: 'integer', minimum: 0 } },
    required: ['text', 'ms'],
  };
  const tool = { name: TOOL, description: 'Echoes.', workflow: 'slowEcho', taskQueue: QUEUE, inputSchema };
  writeFileSync(catalog, JSON.stringify({ tools: [tool] }));
});

after(async () => {
  worker?.shutdown();
  await workerRun?.catch(() => {});
  await connection?.close();
  await temporal?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** How many runs of `query` the namespace's visibility lists, once it lists `expected` (or the deadline passes). */
async function runsListed(query: string, expected: number): Promise<number> {
  let count = -1;
  await eventually(
    async () => {
      count = (await temporal.client.workflow.count(query)).count;
      return count >= expected ? true : undefined;
    },
    10_000,
    `${expected} run(s) of ${query}`,
  ).catch(() => undefined);
  return count;
}

async function withGateway(env: Record<string, string>, use: (gateway: TestGateway) => Promise<void>) {
  const gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: 'unused',
    waitBudgetMs: 300,
    env: { MCP_TOOLS_FILE: catalog, ...env },
  });
  try {
    await use(gateway);
  } finally {
    await gateway.close();
  }
}

/** One call on the Tasks path and one start/poll call of build.v1, each polled to its result. */
async function callBoth(gateway: TestGateway): Promise<string[]> {
  const created = await rpcResult(gateway.url, 'tools/call', {
    name: TOOL,
    arguments: { text: 'tasked', ms: 1_500 },
  });
  assert.equal(created.resultType, 'task');
  const taskId = String(created.taskId);
  assert.equal((await rpcResult(gateway.url, 'tasks/get', { taskId })).status, 'working');
  const done = await eventually(
    async () => {
      const task = await rpcResult(gateway.url, 'tasks/get', { taskId });
      return task.status === 'completed' ? task : undefined;
    },
    20_000,
    'the task to complete',
  );
  const result = done.result as { structuredContent: Record<string, unknown> };
  assert.deepEqual(result.structuredContent.result, { echo: 'tasked', length: 6 });

  const v1: V1Client = await connectV1(gateway.url);
  try {
    const started = structured(await v1.callTool({ name: TOOL, arguments: { text: 'polled', ms: 1_500 } }));
    assert.equal(started.status, 'running');
    const handle = String(started.workflow_id);
    const final = await eventually(
      async () => {
        const json = structured(
          await v1.callTool({ name: `get_${TOOL}_result`, arguments: { workflow_id: handle } }),
        );
        return json.status === 'completed' ? json : undefined;
      },
      20_000,
      'the polled call to complete',
    );
    assert.deepEqual(final.result, { echo: 'polled', length: 6 });
    return [taskId, handle];
  } finally {
    await v1.close();
  }
}

describe(`a catalog tool named ${TOOL}`, () => {
  test('MCP_MAX_RUNNING_TASKS=0: each call a task id without a run part that reads back, one run per call', async () => {
    const since = new Date().toISOString();
    await withGateway({ MCP_MAX_RUNNING_TASKS: '0' }, async (gateway) => {
      const ids = await callBoth(gateway);
      for (const id of ids) assert.match(id, /^build\.v1-[A-Za-z0-9_-]{32}$/);
      // Without the cap the task id is its run's workflow id.
      for (const id of ids)
        assert.equal((await temporal.client.workflow.getHandle(id).describe()).type, 'slowEcho');
    });
    assert.equal(await runsListed(`McpTool = "${TOOL}" AND StartTime >= "${since}"`, 2), 2);
  });

  test('under the running-task cap: each call a task id with its run part that reads back', async () => {
    const since = new Date().toISOString();
    await withGateway(DEFAULT_CAP, async (gateway) => {
      const ids = await callBoth(gateway);
      for (const id of ids) assert.match(id, /^build\.v1-[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{35}$/);
      // Each names its own run of its slot's workflow id.
      const runs = await Promise.all(ids.map((id) => taskHandle(temporal.client, ANONYMOUS, id).describe()));
      assert.deepEqual(
        runs.map((run) => [run.type, run.status.name]),
        [
          ['slowEcho', 'COMPLETED'],
          ['slowEcho', 'COMPLETED'],
        ],
      );
      assert.notEqual(runs[0]?.runId, runs[1]?.runId);
    });
    assert.equal(await runsListed(`McpTool = "${TOOL}" AND StartTime >= "${since}"`, 2), 2);
  });
});

describe('a start under a prefix whose task ids would not read back', () => {
  test('is refused before anything starts, keyed or not, with no running-task cap', async () => {
    const backend = new TemporalBackend(temporal.client, {
      namespace: temporal.namespace,
      callTimeoutMs: 10_000,
      queryTimeoutMs: 1_000,
      serverSecret: Buffer.from(TEST_SERVER_SECRET),
      fleetTaskQueue: 'task-id-prefixes-gateways',
      maxRunningTasks: 0,
    });
    const caller = { principal: 'alice' };
    // Its plain ids would read as ids under "x" naming a run: the tool's every task would be lost.
    const odd = {
      name: 'odd',
      idPrefix: `x-${'A'.repeat(32)}.v1`,
      workflow: 'neverStarted',
      // No worker: the runs stay as they were started.
      taskQueue: 'task-id-prefixes-nobody',
    };
    const refused = /task ids cannot be made under the prefix "x-A{32}\.v1"/;
    const request = { tool: odd, input: {}, arguments: {}, summary: 'odd' };
    await assert.rejects(backend.starts.run(request, caller), refused);
    await assert.rejects(backend.starts.run({ ...request, idempotencyKey: 'k' }, caller), refused);
    // A start after them, once visibility lists it, shows it has caught up with theirs.
    const sound = { ...odd, name: 'sound', idPrefix: 'sound', workflow: 'startedAfter' };
    const started = await backend.starts.run({ ...request, tool: sound }, caller);
    assert.match(started.task.id, /^sound-/);
    assert.equal(await runsListed('WorkflowType = "startedAfter"', 1), 1);
    assert.equal(await runsListed('WorkflowType = "neverStarted"', 0), 0, 'no run of the refused starts');
    await temporal.client.workflow.getHandle(started.run.workflowId).terminate('done');
  });
});
