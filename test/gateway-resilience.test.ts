// The gateway when things are slow or missing: the bounded wait answers the moment the run ends,
// polls never hang without a worker, Temporal outages give a clear error fast, and a broken run
// reads as failed (not as unknown).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { freePort } from '../launcher/free-port.ts';
import { calibrate, difficultyFor, type MinerSpeed } from './support/gateway-difficulty.ts';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { connectV1, structured } from './support/mcp-clients.ts';
import { rpc, rpcResult } from './support/mcp-http.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const TASK_QUEUE = `gateway-resilience-${process.pid}`;

let temporal: TestTemporal | undefined;
let worker: WorkerProcess | undefined;
const gateways: TestGateway[] = [];
let speed: MinerSpeed;

async function gatewayFor(options: Partial<Parameters<typeof startGateway>[0]>): Promise<TestGateway> {
  assert.ok(temporal);
  const gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    ...options,
  });
  gateways.push(gateway);
  return gateway;
}

before(async () => {
  temporal = await startTestTemporal();
  worker = startWorker({ ...temporal.env, TEMPORAL_TASK_QUEUE: TASK_QUEUE });
  const gateway = await gatewayFor({});
  await worker.ready;
  speed = await calibrate(gateway.url);
});

after(async () => {
  for (const gateway of gateways) await gateway.close().catch(() => {});
  await worker?.stop().catch(() => {});
  await temporal?.close();
});

describe('bounded wait', () => {
  test('the inline answer leaves the moment the run closes, not when the budget ends', async () => {
    const budgetMs = 10_000;
    const gateway = await gatewayFor({ waitBudgetMs: budgetMs });
    // Four blocks of about a quarter second: done well inside the budget, yet not instantly.
    const args = { difficulty: difficultyFor(speed, 0.25), blocks: 4 };
    const sent = Date.now();
    const answer = await rpcResult(gateway.url, 'tools/call', { name: 'start_mining', arguments: args });
    const received = Date.now();
    const json = structured(answer);
    assert.equal(json.status, 'completed');
    assert.ok(temporal);
    const description = await temporal.client.workflow.getHandle(String(json.workflow_id)).describe();
    const closed = description.closeTime?.getTime();
    assert.ok(closed);
    const gap = received - closed;
    console.log(`bounded wait: call took ${received - sent} ms; answer ${gap} ms after the run closed`);
    assert.ok(gap < budgetMs / 10, `answered ${gap} ms after the run closed (budget ${budgetMs} ms)`);
    assert.ok(received - sent < budgetMs, 'the call waited the whole budget');
  });

  test('a run longer than the budget is answered when the budget ends', async () => {
    const budgetMs = 800;
    const gateway = await gatewayFor({ waitBudgetMs: budgetMs });
    const sent = Date.now();
    const answer = await rpcResult(gateway.url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: difficultyFor(speed, 120), blocks: 1 },
    });
    const took = Date.now() - sent;
    assert.equal(answer.resultType, 'task');
    assert.ok(took >= budgetMs && took < budgetMs + 2_000, `answered after ${took} ms`);
    await rpcResult(gateway.url, 'tasks/cancel', { taskId: answer.taskId });
  });
});

describe('no worker polling the task queue', () => {
  let gateway: TestGateway;
  before(async () => {
    assert.ok(temporal);
    gateway = await startGateway({
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      taskQueue: `nobody-home-${process.pid}`,
      waitBudgetMs: 300,
      queryTimeoutMs: 800,
    });
    gateways.push(gateway);
  });

  test('start, tasks/get and get_mining_result answer promptly, saying no worker is polling', async () => {
    let sent = Date.now();
    const created = await rpcResult(gateway.url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 10, blocks: 1 },
    });
    assert.ok(Date.now() - sent < 300 + 800 + 1_500, `start took ${Date.now() - sent} ms`);
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');

    // The run publishes its progress: a poll is one describe, no worker asked. Once its first step
    // has waited for a worker as long as a query may (800 ms), the poll says none is polling.
    const noted = await eventually(
      async () => {
        sent = Date.now();
        const task = await rpcResult(gateway.url, 'tasks/get', { taskId: created.taskId });
        const took = Date.now() - sent;
        assert.ok(took < 1_000, `tasks/get took ${took} ms`);
        assert.ok(GetTaskResultV2Schema.safeParse(task).success);
        assert.equal(task.status, 'working');
        return /no worker is polling task queue "nobody-home-/.test(String(task.statusMessage))
          ? task
          : undefined;
      },
      10_000,
      'a poll saying no worker is polling',
      200,
    );
    assert.match(String(noted.statusMessage), /has waited \d+\.\d s for one/);

    const v1 = await connectV1(gateway.url);
    try {
      const polled = structured(
        await v1.callTool({ name: 'get_mining_result', arguments: { workflow_id: created.taskId } }),
      );
      assert.equal(polled.status, 'running');
      assert.equal(polled.progress, null);
      assert.match(String(polled.note), /no worker is polling/);
    } finally {
      await v1.close();
    }
  });
});

describe('a broken run', () => {
  test('a terminated run reads failed with a JSON-RPC error, distinct from not_found', async () => {
    const gateway = await gatewayFor({ waitBudgetMs: 200 });
    const created = await rpcResult(gateway.url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: difficultyFor(speed, 120), blocks: 1 },
    });
    const taskId = String(created.taskId);
    assert.ok(temporal);
    await temporal.client.workflow.getHandle(taskId).terminate('operator pulled the plug');

    const task = await eventually(
      async () => {
        const t = await rpcResult(gateway.url, 'tasks/get', { taskId });
        return t.status === 'working' ? undefined : t;
      },
      10_000,
      'the terminated run to read as closed',
    );
    assert.ok(GetTaskResultV2Schema.safeParse(task).success);
    assert.equal(task.status, 'failed');
    const error = task.error as { code: number; message: string };
    assert.equal(error.code, -32603);
    assert.match(error.message, /terminated: operator pulled the plug/);

    const v1 = await connectV1(gateway.url);
    try {
      const polled = structured(
        await v1.callTool({ name: 'get_mining_result', arguments: { workflow_id: taskId } }),
      );
      assert.equal(polled.status, 'failed');
      assert.equal(polled.reason, 'terminated');
    } finally {
      await v1.close();
    }
  });
});

describe('Temporal unreachable', () => {
  test('/readyz says 503 and tools/call fails with a clear error, both within a few seconds', async () => {
    const deadPort = await freePort();
    const gateway = await startGateway({
      temporalAddress: `127.0.0.1:${deadPort}`,
      taskQueue: TASK_QUEUE,
      readyTimeoutMs: 1_000,
      temporalTimeoutMs: 2_000,
    });
    gateways.push(gateway);

    assert.equal((await fetch(new URL('/healthz', gateway.origin))).status, 200);
    let sent = Date.now();
    const ready = await fetch(new URL('/readyz', gateway.origin));
    assert.equal(ready.status, 503);
    // The reason (an address, a gRPC message) is for the log, not for an unauthenticated caller.
    assert.deepEqual(await ready.json(), { status: 'unavailable', temporal: 'unreachable' });
    assert.ok(Date.now() - sent < 2_500, `/readyz took ${Date.now() - sent} ms`);

    sent = Date.now();
    const answer = await rpc(gateway.url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 8, blocks: 1 },
    });
    assert.ok(Date.now() - sent < 5_000, `tools/call took ${Date.now() - sent} ms`);
    assert.equal(answer.error?.code, -32603);
    // /readyz found the address refusing connections: the start was refused before anything was
    // sent, so the answer says nothing was started and a retry is safe.
    assert.match(answer.error?.message ?? '', /nothing was started, so calling again is safe/);
    assert.equal((answer.error?.data as { started?: boolean } | undefined)?.started, false);
  });
});
