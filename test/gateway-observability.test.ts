// What an operator sees, against a real dev server, a worker process and the gateway: each run's
// Web UI summary and details (tool, arguments, caller, MCP client, protocol revision) and its
// McpTool / McpPrincipal search attributes; and GET /metrics moving by exactly the calls made.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { connectV1, structured } from './support/mcp-clients.ts';
import { PLAIN_CLIENT, PROTOCOL_VERSION, rpc, rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { delta, type Samples, scrape } from './support/metrics-scrape.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const TASK_QUEUE = `observability-${process.pid}`;
/** Blocks at the top difficulty take days: these runs stay running until the test ends them. */
const ENDLESS = { difficulty: 40, blocks: 2 };

let temporal: TestTemporal | undefined;
let worker: WorkerProcess | undefined;
let gateway: TestGateway;
/** The same Temporal and queue, refusing a second poll of a task within a minute. */
let limited: TestGateway;
let dataDir: string | undefined;
const started: string[] = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'observability-'));
  temporal = await startTestTemporal();
  worker = startWorker({
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MCP_DATA_DIR: dataDir,
  });
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    waitBudgetMs: 2_500,
  });
  limited = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    env: { MCP_POLL_INTERVAL_MS: '60000', MCP_POLL_MIN_INTERVAL_MS: '60000' },
  });
  await worker.ready;
  // A first run warms the worker up, so a tiny run later finishes well within the budget.
  const warm = await rpcResult(gateway.url, 'tools/call', {
    name: 'start_mining',
    arguments: { difficulty: 1, blocks: 1 },
  });
  if (warm.resultType === 'task') started.push(String(warm.taskId));
});

after(async () => {
  for (const id of started) {
    await temporal?.client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => {});
  }
  await gateway?.close().catch(() => {});
  await limited?.close().catch(() => {});
  await worker?.stop().catch(() => {});
  await temporal?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function describeRun(workflowId: string) {
  assert.ok(temporal);
  return temporal.client.workflow.getHandle(workflowId).describe();
}

describe('Temporal Web UI visibility', () => {
  test('a run started by a 2026-07-28 client: summary, details with client and revision, search attributes', async () => {
    const task = await rpcResult(gateway.url, 'tools/call', {
      name: 'start_mining',
      arguments: { ...ENDLESS, data: 'visibility' },
    });
    assert.equal(task.resultType, 'task');
    const taskId = String(task.taskId);
    started.push(taskId);

    const description = await describeRun(taskId);
    const principal = String(description.memo?.principal);
    assert.equal(
      await description.staticSummary(),
      `start_mining: 2 block(s) at difficulty 40 for ${principal}`,
    );
    const details = (await description.staticDetails()) ?? '';
    assert.match(details, new RegExp(`\\*\\*Caller:\\*\\* \`${principal}\``));
    const { name, version } = TASKS_CLIENT.clientInfo;
    assert.match(
      details,
      new RegExp(`\\*\\*MCP client:\\*\\* \`${name}\` ${version.replaceAll('.', '\\.')}`),
    );
    assert.match(details, new RegExp(`\\*\\*Protocol revision:\\*\\* ${PROTOCOL_VERSION}`));
    assert.match(details, /"data": "visibility"/);
    assert.deepEqual(description.memo?.origin, {
      clientName: name,
      clientVersion: version,
      protocolVersion: PROTOCOL_VERSION,
      userAgent: 'node',
    });

    // What the Web UI's filter runs: a visibility query on the two search attributes.
    assert.ok(temporal);
    const query = `McpTool = "start_mining" AND McpPrincipal = "${principal}" AND ExecutionStatus = "Running"`;
    const client = temporal.client;
    await eventually(
      async () => {
        for await (const run of client.workflow.list({ query })) if (run.workflowId === taskId) return true;
        return undefined;
      },
      10_000,
      'the run to show under the McpTool/McpPrincipal filter',
    );
  });

  test('a run started by a 2025-11-25 client: the revision from its header, the client said to be unnamed', async () => {
    const client = await connectV1(gateway.url);
    try {
      const json = structured(await client.callTool({ name: 'start_mining', arguments: ENDLESS }));
      assert.equal(json.status, 'running');
      const workflowId = String(json.workflow_id);
      started.push(workflowId);
      const details = (await (await describeRun(workflowId)).staticDetails()) ?? '';
      assert.match(details, /\*\*MCP client:\*\* not named on this request/);
      assert.match(details, /\*\*Protocol revision:\*\* 2025-11-25/);
    } finally {
      await client.close();
    }
  });
});

describe('an operator cancels or terminates a run', () => {
  async function startEndless(framing = TASKS_CLIENT): Promise<string> {
    const answer = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'start_mining', arguments: ENDLESS },
      framing,
    );
    const id = String(answer.resultType === 'task' ? answer.taskId : structured(answer).workflow_id);
    started.push(id);
    return id;
  }

  test('cancelled in Temporal: tasks/get says cancelled, get_mining_result says cancelled', async () => {
    assert.ok(temporal);
    const taskId = await startEndless();
    const workflowId = await startEndless(PLAIN_CLIENT);
    for (const id of [taskId, workflowId]) {
      const handle = temporal.client.workflow.getHandle(id);
      await handle.cancel();
      await handle.result().catch(() => {});
    }
    const task = await rpcResult(gateway.url, 'tasks/get', { taskId });
    assert.equal(task.status, 'cancelled');
    const poll = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'get_mining_result', arguments: { workflow_id: workflowId } },
      PLAIN_CLIENT,
    );
    assert.equal(structured(poll).status, 'cancelled');
  });

  test('terminated in Temporal: failed with reason "terminated", for both kinds of client', async () => {
    assert.ok(temporal);
    const taskId = await startEndless();
    const workflowId = await startEndless(PLAIN_CLIENT);
    for (const id of [taskId, workflowId]) await temporal.client.workflow.getHandle(id).terminate('stuck');
    const task = await rpcResult(gateway.url, 'tasks/get', { taskId });
    assert.equal(task.status, 'failed');
    const error = task.error as { code: number; message: string; data: { reason: string } };
    assert.equal(error.code, -32603);
    assert.equal(error.data.reason, 'terminated');
    assert.match(error.message, /^The mining run was terminated/);
    const poll = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'get_mining_result', arguments: { workflow_id: workflowId } },
      PLAIN_CLIENT,
    );
    assert.equal(poll.isError, true);
    assert.equal(structured(poll).status, 'failed');
    assert.equal(structured(poll).reason, 'terminated');
  });
});

describe('GET /metrics', () => {
  test('serves Prometheus text with the gateway metrics and the process metrics', async () => {
    const response = await fetch(new URL('/metrics', gateway.origin));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    for (const name of [
      'mcp_gateway_tool_calls_total',
      'mcp_gateway_task_requests_total',
      'mcp_gateway_wait_duration_seconds',
      'mcp_gateway_temporal_request_duration_seconds',
      'mcp_gateway_polls_rate_limited_total',
      'mcp_gateway_answers_cut_total',
      'process_cpu_user_seconds_total',
      'nodejs_heap_size_used_bytes',
    ]) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
  });

  test('the metrics move by exactly the calls made', async () => {
    const url = gateway.url;
    const before: Samples = await scrape(gateway.origin);

    // tools/call: one inline, one task, one start/poll, one refused; one poll still running.
    const inline = await rpcResult(url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 1, blocks: 1 },
    });
    assert.equal(structured(inline).status, 'completed');
    const task = await rpcResult(url, 'tools/call', { name: 'start_mining', arguments: ENDLESS });
    assert.equal(task.resultType, 'task');
    started.push(String(task.taskId));
    const plain = await rpcResult(
      url,
      'tools/call',
      { name: 'start_mining', arguments: ENDLESS },
      PLAIN_CLIENT,
    );
    const workflowId = String(structured(plain).workflow_id);
    started.push(workflowId);
    const refused = await rpc(url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 999, blocks: 1 },
    });
    assert.equal(refused.error?.code, -32602);
    const poll = await rpcResult(
      url,
      'tools/call',
      { name: 'get_mining_result', arguments: { workflow_id: workflowId } },
      PLAIN_CLIENT,
    );
    assert.equal(structured(poll).status, 'running');

    // tasks/*: a get, an unknown id, a request without the extension, a cancel. The get goes
    // through the rate-limited gateway, and an immediate second one is refused there.
    await rpcResult(limited.url, 'tasks/get', { taskId: task.taskId });
    const tooSoon = await rpc(limited.url, 'tasks/get', { taskId: task.taskId });
    assert.equal(tooSoon.httpStatus, 429);
    assert.equal((tooSoon.error?.data as { reason?: string } | undefined)?.reason, 'poll_rate_limited');
    assert.equal((await rpc(url, 'tasks/get', { taskId: 'mine-unknown' })).error?.code, -32602);
    assert.equal((await rpc(url, 'tasks/get', { taskId: task.taskId }, PLAIN_CLIENT)).error?.code, -32021);
    await rpcResult(url, 'tasks/cancel', { taskId: task.taskId });

    const after = await scrape(gateway.origin);
    const calls = (tool: string, outcome: string) =>
      delta(before, after, 'mcp_gateway_tool_calls_total', { tool, outcome });
    assert.equal(calls('start_mining', 'inline'), 1);
    assert.equal(calls('start_mining', 'task'), 1);
    assert.equal(calls('start_mining', 'start_poll'), 1);
    assert.equal(calls('start_mining', 'error'), 1);
    assert.equal(calls('get_mining_result', 'start_poll'), 1);

    const tasks = (method: string, outcome: string) =>
      delta(before, after, 'mcp_gateway_task_requests_total', { method, outcome });
    assert.equal(tasks('tasks/get', 'ok'), 1);
    assert.equal(tasks('tasks/get', 'not_found'), 1);
    assert.equal(tasks('tasks/get', 'missing_capability'), 1);
    assert.equal(tasks('tasks/cancel', 'ok'), 1);

    const waits = (outcome: string) =>
      delta(before, after, 'mcp_gateway_wait_duration_seconds_count', { outcome });
    assert.equal(waits('closed'), 1);
    assert.equal(waits('budget_spent'), 2);
    // The two spent budgets took at least the budget each.
    assert.ok(
      delta(before, after, 'mcp_gateway_wait_duration_seconds_sum', { outcome: 'budget_spent' }) >= 5,
    );

    const temporalCalls = (operation: string, outcome = 'ok') =>
      delta(before, after, 'mcp_gateway_temporal_request_duration_seconds_count', { operation, outcome });
    assert.equal(temporalCalls('start'), 3);
    assert.equal(temporalCalls('result-wait'), 1);
    // A wait of a tool that takes input follows the run's history: each spent budget ends its long
    // poll (aborted); each wait read the history first (ok), and once per change while it mined.
    assert.equal(temporalCalls('history-wait', 'aborted'), 2);
    assert.ok(temporalCalls('history-wait') >= 2, `history-wait: ${temporalCalls('history-wait')}`);
    assert.equal(temporalCalls('result-wait', 'aborted'), 0);
    assert.ok(temporalCalls('describe') >= 4, `describe: ${temporalCalls('describe')}`);
    // The mining run publishes its progress: no poll asked a worker.
    assert.equal(temporalCalls('query'), 0);
    assert.equal(temporalCalls('cancel'), 1);

    assert.equal(delta(before, after, 'mcp_gateway_polls_rate_limited_total'), 1);
  });
});
