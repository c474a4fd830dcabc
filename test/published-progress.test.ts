// Progress published to the run's memo, against a real dev server, a real worker and the gateway
// over HTTP: a poll of a run that publishes is one describe and no query; it answers with every
// worker stopped; a run waiting for a person is found by McpTaskStatus; a run that only answers the
// query (as one started before publishing existed) still polls; and where the namespace lacks
// McpTaskStatus and McpTaskId, the gateway works and says so once for each.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ANONYMOUS } from '../gateway/mcp/handler.ts';
import { newTaskId } from '../gateway/temporal/task-ids.ts';
import { freePort } from '../launcher/free-port.ts';
import { PROGRESS_MEMO } from '../workflows/mcp-contract.ts';
import { paceStep } from './fixtures/workflows/paced-run.ts';
import { finishQueryOnly } from './fixtures/workflows/published.ts';
import { startGatewayProcess } from './support/gateway-process.ts';
import { startGateway, TEST_SERVER_SECRET, type TestGateway, taskHandle } from './support/gateway-server.ts';
import { rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { type Samples, scrape, summedDelta } from './support/metrics-scrape.ts';
import {
  eventually,
  startOwnTestTemporal,
  startTestTemporal,
  type TestTemporal,
} from './support/temporal.ts';

const CATALOG = fileURLToPath(new URL('./fixtures/published-catalog.yaml', import.meta.url));
const WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/published.ts', import.meta.url));
const TASK_QUEUE = 'fixture-published';

let temporal: TestTemporal;
let gateway: TestGateway;
let worker: Worker | undefined;
let workerRun: Promise<void> | undefined;

async function startWorker(on: TestTemporal): Promise<{ worker: Worker; run: Promise<void> }> {
  const conn = await NativeConnection.connect({ address: on.address });
  const created = await Worker.create({
    connection: conn,
    namespace: on.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: WORKFLOWS,
  });
  const run = created.run().finally(() => conn.close());
  return { worker: created, run };
}

before(async () => {
  temporal = await startTestTemporal();
  ({ worker, run: workerRun } = await startWorker(temporal));
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: 'not-used-by-the-catalog',
    env: { MCP_TOOLS_FILE: CATALOG, MCP_POLL_MIN_INTERVAL_MS: '0' },
  });
});

after(async () => {
  await gateway?.close();
  worker?.shutdown();
  await workerRun?.catch(() => {});
  await temporal?.close();
});

/** The Temporal calls of `operation` the gateway made between two scrapes, whatever their outcome. */
const temporalCalls = (before: Samples, after: Samples, operation: string) =>
  summedDelta(before, after, 'mcp_gateway_temporal_request_duration_seconds_count', { operation });

async function startTask(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const created = await rpcResult(gateway.url, 'tools/call', { name, arguments: args }, TASKS_CLIENT);
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  return created.taskId as string;
}

const getTask = (taskId: string) => rpcResult(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT);

describe('a run that publishes its progress', () => {
  let taskId: string;

  before(async () => {
    taskId = await startTask('paced_run', { total: 10 });
    await temporal.client.workflow
      .getHandle(taskId)
      .signal(paceStep, { message: 'Half way there', progress: 5, total: 10 });
    await eventually(
      async () => ((await getTask(taskId)).statusMessage === 'Half way there' ? true : undefined),
      10_000,
      'the published progress',
    );
  });

  test('its memo carries the progress; a poll is one describe and no query', async () => {
    const description = await temporal.client.workflow.getHandle(taskId).describe();
    const published = description.memo?.[PROGRESS_MEMO] as Record<string, unknown>;
    assert.equal(published.message, 'Half way there');
    assert.equal(published.progress, 5);
    const before = await scrape(gateway.origin);
    const polls = 10;
    for (let i = 0; i < polls; i++) assert.equal((await getTask(taskId)).statusMessage, 'Half way there');
    const after = await scrape(gateway.origin);
    assert.equal(temporalCalls(before, after, 'query'), 0, 'no progress query');
    const describes = temporalCalls(before, after, 'describe');
    console.log(`Temporal calls per tasks/get of a publishing run: ${describes / polls} describe, 0 queries`);
    assert.equal(describes, polls, 'one describe per poll');
  });

  test('McpTaskStatus finds it while it waits for a person, and again once answered', async () => {
    const handle = temporal.client.workflow.getHandle(taskId);
    const listed = async (status: string) => {
      const query = `McpTaskStatus = "${status}" AND WorkflowId = "${taskId}"`;
      for await (const run of temporal.client.workflow.list({ query })) return run;
      return undefined;
    };
    assert.ok(await eventually(() => listed('working'), 10_000, 'McpTaskStatus working'));
    await handle.signal(paceStep, { ask: true });
    const waiting = await eventually(
      async () => {
        const task = await getTask(taskId);
        return task.status === 'input_required' ? task : undefined;
      },
      10_000,
      'input_required',
    );
    assert.ok(await eventually(() => listed('input_required'), 10_000, 'McpTaskStatus input_required'));
    const [key] = Object.keys(waiting.inputRequests as object);
    await rpcResult(
      gateway.url,
      'tasks/update',
      { taskId, inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } } },
      TASKS_CLIENT,
    );
    // Right after the answer the run has not taken it yet: the poll does not show the old question.
    assert.equal((await getTask(taskId)).status, 'working');
    assert.ok(await eventually(() => listed('working'), 10_000, 'McpTaskStatus working again'));
  });

  test('with every worker stopped, tasks/get answers within 1 s with the progress last published', async () => {
    await temporal.client.workflow.getHandle(taskId).signal(paceStep, { message: 'Last words', progress: 9 });
    await eventually(
      async () => ((await getTask(taskId)).statusMessage === 'Last words' ? true : undefined),
      10_000,
      'the last progress',
    );
    worker?.shutdown();
    await workerRun;
    worker = undefined;
    await temporal.client.workflow.getHandle(taskId).signal(paceStep, { message: 'Never taken' });
    for (let i = 0; i < 3; i++) {
      const sent = performance.now();
      const task = await getTask(taskId);
      const took = performance.now() - sent;
      assert.ok(took < 1_000, `tasks/get took ${took.toFixed(0)} ms`);
      assert.equal(task.status, 'working');
      assert.equal(task.statusMessage, 'Last words');
    }
    ({ worker, run: workerRun } = await startWorker(temporal));
  });
});

describe('a run that only answers the progress query', () => {
  test('one started without a published progress (before publishing existed) is asked the query', async () => {
    // As a gateway before publishing started it: the memo has no progress key.
    const workflowId = newTaskId(Buffer.from(TEST_SERVER_SECRET), 'anonymous', 'query_only');
    await temporal.client.workflow.start('queryOnlyRun', {
      workflowId,
      taskQueue: TASK_QUEUE,
      args: [],
      memo: {
        tool: 'query_only',
        principal: 'anonymous',
        arguments: {},
        createdAt: new Date().toISOString(),
      },
      typedSearchAttributes: [],
    });
    const task = await eventually(
      async () => {
        const got = await getTask(workflowId);
        return got.statusMessage ? got : undefined;
      },
      10_000,
      'the query answer',
    );
    assert.equal(task.status, 'working');
    assert.equal(task.statusMessage, 'Answered by the query');
    await temporal.client.workflow.getHandle(workflowId).signal(finishQueryOnly);
  });
});

describe('a namespace without McpTaskStatus and McpTaskId', () => {
  let bare: TestTemporal;
  before(async () => {
    bare = await startOwnTestTemporal({ McpTool: 'Keyword', McpPrincipal: 'Keyword' });
  });
  after(async () => {
    await bare?.close();
  });

  test('the gateway says so once, at its first ready check, for each, and runs start and publish without them', async () => {
    const bareWorker = await startWorker(bare);
    const gatewayProcess = await startGatewayProcess(await freePort(), {
      ...bare.env,
      TEMPORAL_TASK_QUEUE: 'not-used-by-the-catalog',
      MCP_TOOLS_FILE: CATALOG,
      MCP_SERVER_SECRET: TEST_SERVER_SECRET,
    });
    // Probed as npm start and Compose probe it: the first ready check that reaches Temporal tells.
    const ready = async () => (await fetch(new URL('/readyz', gatewayProcess.url))).status;
    try {
      assert.equal(await ready(), 200);
      const said = await eventually(
        async () =>
          /McpTaskStatus is not registered/.test(gatewayProcess.output()) &&
          /McpTaskId is not registered/.test(gatewayProcess.output())
            ? true
            : undefined,
        10_000,
        'the missing attributes named in the log',
      );
      assert.ok(said);
      const created = await rpcResult(
        gatewayProcess.url,
        'tools/call',
        { name: 'paced_run', arguments: {} },
        TASKS_CLIENT,
      );
      const taskId = created.taskId as string;
      await taskHandle(bare.client, ANONYMOUS, taskId).signal(paceStep, { message: 'Without the attribute' });
      const task = await eventually(
        async () => {
          const got = await rpcResult(gatewayProcess.url, 'tasks/get', { taskId }, TASKS_CLIENT);
          return got.statusMessage === 'Without the attribute' ? got : undefined;
        },
        10_000,
        'the published progress',
      );
      assert.equal(task.status, 'working');
      assert.equal(await ready(), 200);
      for (const name of ['McpTaskStatus', 'McpTaskId']) {
        const matches = gatewayProcess.output().match(new RegExp(`${name} is not registered`, 'g')) ?? [];
        assert.equal(matches.length, 1, `${name}: said once`);
      }
      await taskHandle(bare.client, ANONYMOUS, taskId).signal(paceStep, { finish: true });
    } finally {
      await gatewayProcess.stop();
      bareWorker.worker.shutdown();
      await bareWorker.run.catch(() => {});
    }
  });
});
