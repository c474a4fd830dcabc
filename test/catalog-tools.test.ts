// Workflows the gateway's code never names, served only through a catalog file
// (test/fixtures/catalog.yaml): a contract-free TypeScript workflow and a Python workflow that meets
// the whole contract (progress, input, tool error), each on its own worker and task queue, against a
// real dev server, driven by real MCP clients over HTTP on the Tasks and the start/poll paths.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { connectV1, connectV2, structured } from './support/mcp-clients.ts';
import { PLAIN_CLIENT, rpc, rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { startPythonWorker } from './support/python-worker.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const CATALOG = fileURLToPath(new URL('./fixtures/catalog.yaml', import.meta.url));
const ECHO_WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/slow-echo.ts', import.meta.url));

let temporal: TestTemporal;
let gateway: TestGateway;
let echoWorker: Worker;
let echoRun: Promise<void>;
let echoConnection: NativeConnection;
let python: ReturnType<typeof startPythonWorker>;
let v1: V1Client;

/** Polls tasks/get until `done` accepts the task. */
function taskUntil(taskId: string, done: (task: Record<string, unknown>) => boolean, what: string) {
  return eventually(
    async () => {
      const task = await rpcResult(gateway.url, 'tasks/get', { taskId });
      return done(task) ? task : undefined;
    },
    30_000,
    what,
  );
}

/** Calls a start/poll tool with the v1 client and returns its JSON. */
async function call(name: string, args: Record<string, unknown>) {
  const result = await v1.callTool({ name, arguments: args });
  return { json: structured(result), isError: result.isError === true };
}

before(async () => {
  temporal = await startTestTemporal();
  python = startPythonWorker({
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: 'fixture-review',
  });
  echoConnection = await NativeConnection.connect({ address: temporal.address });
  echoWorker = await Worker.create({
    connection: echoConnection,
    namespace: temporal.namespace,
    taskQueue: 'fixture-echo',
    workflowsPath: ECHO_WORKFLOWS,
  });
  echoRun = echoWorker.run();
  await python.ready;
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: 'not-used-by-the-catalog',
    waitBudgetMs: 1_500,
    env: { MCP_TOOLS_FILE: CATALOG },
  });
  v1 = await connectV1(gateway.url);
});

after(async () => {
  await v1?.close();
  await gateway?.close();
  echoWorker?.shutdown();
  await echoRun?.catch(() => {});
  await echoConnection?.close();
  await python?.stop();
  await temporal?.close();
});

describe('tools/list from the catalog', () => {
  test('each entry with its companions, schemas and annotations; nothing built in', async () => {
    const client = await connectV2(gateway.url, { tasks: false });
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).sort();
      assert.deepEqual(names, [
        'cancel_echo_slowly',
        'check_review',
        'echo_slowly',
        'get_echo_slowly_result',
        'respond_to_review_draft',
        'review_draft',
        'stop_review',
      ]);
      const echo = tools.find((t) => t.name === 'echo_slowly');
      assert.ok(echo);
      assert.equal(echo?.title, 'Echo slowly');
      assert.equal(echo?.annotations?.readOnlyHint, true);
      assert.deepEqual((echo.inputSchema.properties as Record<string, unknown>).ms, {
        type: 'integer',
        minimum: 0,
        maximum: 600000,
        default: 300,
      });
      const result = (echo?.outputSchema?.properties ?? {}) as Record<string, Record<string, unknown>>;
      assert.deepEqual(result.result?.required, ['echo', 'length']);
      assert.match(echo?.description ?? '', /^Echoes `text` back/);
      assert.match(echo?.description ?? '', /call get_echo_slowly_result with that exact `workflow_id`/);
      assert.doesNotMatch(echo?.description ?? '', /input_required/, 'no input signal, no respond text');
      const review = tools.find((t) => t.name === 'review_draft');
      assert.match(review?.description ?? '', /check_review/);
      assert.match(review?.description ?? '', /respond_to_review_draft/);
    } finally {
      await client.close();
    }
  });
});

describe('a contract-free TypeScript workflow', () => {
  test('finished within the budget: the result inline, valid against the listed outputSchema', async () => {
    const client = await connectV2(gateway.url, { tasks: false });
    try {
      const result = await client.callTool({ name: 'echo_slowly', arguments: { text: 'hi', ms: 50 } });
      const json = structured(result);
      assert.equal(json.status, 'completed');
      assert.deepEqual(json.result, { echo: 'hi', length: 2 });
      assert.match(String(json.workflow_id), /^echo_slowly-/);
    } finally {
      await client.close();
    }
  });

  test('outlasting the budget with the Tasks extension: a task, working without progress, then completed', async () => {
    const created = await rpcResult(gateway.url, 'tools/call', {
      name: 'echo_slowly',
      arguments: { text: 'later', ms: 3_000 },
    });
    assert.equal(created.resultType, 'task');
    const taskId = String(created.taskId);
    const working = await rpcResult(gateway.url, 'tasks/get', { taskId });
    assert.equal(working.status, 'working');
    const done = await taskUntil(taskId, (t) => t.status === 'completed', 'the echo to complete');
    const result = done.result as { structuredContent: Record<string, unknown> };
    assert.deepEqual(result.structuredContent.result, { echo: 'later', length: 5 });
  });

  test('start/poll: running with no progress and the generic companion named, then completed', async () => {
    const { json: started } = await call('echo_slowly', { text: 'polled', ms: 3_000 });
    assert.equal(started.status, 'running');
    assert.equal(started.progress, null);
    assert.match(String(started.next), /call get_echo_slowly_result with workflow_id/);
    const id = String(started.workflow_id);
    const final = await eventually(
      async () => {
        const { json } = await call('get_echo_slowly_result', { workflow_id: id });
        return json.status === 'completed' ? json : undefined;
      },
      30_000,
      'the polled echo',
      250,
    );
    assert.deepEqual(final.result, { echo: 'polled', length: 6 });
  });

  test('cancel: through the companion and through tasks/cancel', async () => {
    const { json: started } = await call('echo_slowly', { text: 'forever', ms: 600_000 });
    const { json: cancelled } = await call('cancel_echo_slowly', { workflow_id: started.workflow_id });
    assert.equal(cancelled.status, 'cancelled');

    const created = await rpcResult(gateway.url, 'tools/call', {
      name: 'echo_slowly',
      arguments: { text: 'forever', ms: 600_000 },
    });
    const taskId = String(created.taskId);
    assert.equal((await rpcResult(gateway.url, 'tasks/cancel', { taskId })).resultType, 'complete');
    await taskUntil(taskId, (t) => t.status === 'cancelled', 'the task to be cancelled');
  });

  test("another tool's companion does not answer for this tool's run", async () => {
    const { json: started } = await call('echo_slowly', { text: 'mine', ms: 50 });
    const { json, isError } = await call('check_review', { workflow_id: started.workflow_id });
    assert.equal(json.status, 'not_found');
    assert.equal(isError, true);
  });
});

describe('a Python workflow meeting the contract', () => {
  test('Tasks path: statusMessage from its progress, input_required, tasks/update, completed', async () => {
    const created = await rpcResult(gateway.url, 'tools/call', {
      name: 'review_draft',
      arguments: { text: 'hello brave new world', steps: 4, step_ms: 400 },
    });
    assert.equal(created.resultType, 'task');
    const taskId = String(created.taskId);
    const drafting = await taskUntil(
      taskId,
      (t) => /^Drafting step/.test(String(t.statusMessage)),
      'progress',
    );
    assert.equal(drafting.status, 'working');
    const asking = await taskUntil(taskId, (t) => t.status === 'input_required', 'input_required');
    const requests = asking.inputRequests as Record<string, { method: string; params: { message: string } }>;
    assert.deepEqual(Object.keys(requests), ['approve-1']);
    assert.equal(requests['approve-1']?.method, 'elicitation/create');
    assert.match(requests['approve-1']?.params.message ?? '', /Publish the draft of 4 words\?/);
    assert.equal(asking.statusMessage, 'Waiting for a reviewer');
    await rpcResult(gateway.url, 'tasks/update', {
      taskId,
      inputResponses: { 'approve-1': { action: 'accept', content: { approve: true } } },
    });
    const done = await taskUntil(taskId, (t) => t.status === 'completed', 'completion');
    const result = done.result as { structuredContent: Record<string, unknown>; isError?: boolean };
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent.result, {
      draft: 'HELLO BRAVE NEW WORLD',
      words: 4,
      approved: true,
    });
  });

  test('start/poll path: progress, input_required, the respond companion; a decline is a tool error', async () => {
    const { json: started } = await call('review_draft', {
      text: 'three short words',
      steps: 3,
      step_ms: 400,
    });
    assert.equal(started.status, 'running');
    const id = String(started.workflow_id);
    assert.match(String(started.next), /call check_review with workflow_id/);
    const asking = await eventually(
      async () => {
        const { json } = await call('check_review', { workflow_id: id });
        return json.status === 'input_required' ? json : undefined;
      },
      30_000,
      'input_required',
      250,
    );
    assert.match(String(asking.next), /respond_to_review_draft/);
    const { json: answered, isError } = await call('respond_to_review_draft', {
      workflow_id: id,
      key: 'approve-1',
      action: 'decline',
    });
    assert.equal(answered.status, 'failed');
    assert.equal(answered.reason, 'McpToolError');
    assert.equal((answered.error as { message: string }).message, 'The reviewer declined the draft');
    assert.equal(isError, true);
  });

  test('cancel through tasks/cancel ends the run cancelled', async () => {
    const created = await rpcResult(gateway.url, 'tools/call', {
      name: 'review_draft',
      arguments: { text: 'never mind', steps: 20, step_ms: 60_000 },
    });
    const taskId = String(created.taskId);
    await rpcResult(gateway.url, 'tasks/cancel', { taskId });
    await taskUntil(taskId, (t) => t.status === 'cancelled', 'cancelled');
  });

  test('a bad argument is -32602 naming the field, and nothing is started', async () => {
    const count = async () => (await temporal.client.workflow.count('WorkflowType = "reviewDraft"')).count;
    const before = await count();
    const answer = await rpc(
      gateway.url,
      'tools/call',
      { name: 'review_draft', arguments: { text: 'x', steps: 99 } },
      PLAIN_CLIENT,
    );
    assert.equal(answer.error?.code, -32602);
    assert.match(
      answer.error?.message ?? '',
      /^Invalid arguments for tool review_draft: steps: must be <= 20$/,
    );
    const missing = await rpc(
      gateway.url,
      'tools/call',
      { name: 'review_draft', arguments: {} },
      TASKS_CLIENT,
    );
    assert.match(missing.error?.message ?? '', /text: is required/);
    assert.equal(await count(), before);
  });

  test('the declared idempotency argument makes a retried start answer the same task', async () => {
    const args = { text: 'once only', steps: 20, step_ms: 60_000, request_id: 'order-7' };
    const first = await rpcResult(gateway.url, 'tools/call', { name: 'review_draft', arguments: args });
    const again = await rpcResult(gateway.url, 'tools/call', { name: 'review_draft', arguments: args });
    assert.equal(again.taskId, first.taskId);
    await rpcResult(gateway.url, 'tasks/cancel', { taskId: String(first.taskId) });
  });
});
