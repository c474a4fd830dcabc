// The running-task cap's bookkeeping, against a real dev server: a slot kept for a wait is let go
// however the wait ends, including a wait that never began (a budget of 0, a client already gone),
// so a gateway's memory does not grow with every start; concurrent keyed starts of one run, through
// two gateways, hold one slot (a holder the run does not name is freed); a slot that cannot be
// looked at counts as taken, and no more.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Client } from '@temporalio/client';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import { RunningTaskLimitError } from '../gateway/temporal/errors.ts';
import { RUN_SLOT_MEMO, RunningTaskSlots } from '../gateway/temporal/slots.ts';
import { keyedTaskId } from '../gateway/temporal/task-ids.ts';
import { startGateway, TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { rpc, TASKS_CLIENT } from './support/mcp-http.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

let temporal: TestTemporal;

before(async () => {
  temporal = await startTestTemporal();
});

after(async () => {
  await temporal?.close();
});

test('starts whose wait returns at once keep no slot in memory', async () => {
  const backend = new TemporalBackend(temporal.client, {
    namespace: 'default',
    callTimeoutMs: 10_000,
    queryTimeoutMs: 1_000,
    serverSecret: Buffer.from('running-slots-test-secret-0123456789abcdef'),
    maxRunningTasks: 10,
  });
  // No worker polls this queue: the runs stay Running, as a long task does.
  const tool = { name: 'idle', idPrefix: 'idle', workflow: 'idle', taskQueue: `nobody-${process.pid}` };
  const gone = AbortSignal.abort();
  for (let i = 0; i < 4; i++) {
    const { workflowId } = await backend.starts.run(
      { tool, input: {}, arguments: { i }, summary: `idle ${i}` },
      { principal: 'p' },
    );
    const outcome =
      i % 2 === 0
        ? await backend.waits.forResult(workflowId, 0)
        : await backend.waits.forResult(workflowId, 5_000, { gone });
    assert.equal(outcome.kind, 'running');
  }
  assert.equal(backend.slots?.holding, 0);
});

/** The workflow id of a principal's slot `index` (as slots.ts names it), to describe it directly. */
function slotId(secret: string, principal: string, index: number): string {
  const tag = createHmac('sha256', secret)
    .update(`running-task-slot:${principal}`)
    .digest('base64url')
    .slice(0, 22);
  return `mcp-slot-${tag}-${index}`;
}

/** The Running holders of a principal's slots, by the run each names (describes: strongly consistent). */
async function runningHolders(secret: string, principal: string, limit: number): Promise<string[]> {
  const runs: string[] = [];
  for (let i = 0; i < limit; i++) {
    const holder = temporal.client.workflow.getHandle(slotId(secret, principal, i));
    const description = await holder.describe().catch(() => undefined);
    if (description?.status.name === 'RUNNING') runs.push(String(description.memo?.run));
  }
  return runs;
}

test('concurrent keyed starts of one run through two gateways hold one slot', async () => {
  const token = 'keyed-token-0123456789abcdef';
  const env = { MCP_AUTH_TOKENS: `keyed:${token}`, MCP_MAX_RUNNING_TASKS: '3' };
  // No worker polls this queue: the runs stay Running.
  const taskQueue = `nobody-keyed-${process.pid}`;
  const gateways = await Promise.all(
    [1, 2].map(() =>
      startGateway({ temporalAddress: temporal.server.address, taskQueue, waitBudgetMs: 100, env }),
    ),
  );
  const headers = { authorization: `Bearer ${token}` };
  const call = (i: number, args: Record<string, unknown>) =>
    rpc(
      gateways[i % 2]?.url as URL,
      'tools/call',
      { name: 'start_mining', arguments: args },
      TASKS_CLIENT,
      headers,
    );
  try {
    const args = { difficulty: 1, blocks: 1, data: 'keyed', idempotency_key: 'order-1' };
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i, args)));
    const runId = keyedTaskId(
      Buffer.from(TEST_SERVER_SECRET),
      'keyed',
      { name: 'start_mining', idPrefix: 'mine' },
      'order-1',
    );
    for (const answer of answers) assert.equal(answer.result?.taskId, runId, JSON.stringify(answer.error));
    assert.deepEqual(await runningHolders(TEST_SERVER_SECRET, 'keyed', 3), [runId]);
    // Two more runs fit under the cap of 3, and no third.
    const fresh = (i: number) => call(i, { difficulty: 1, blocks: 1, data: `fresh ${i}` });
    for (const i of [0, 1]) assert.ok((await fresh(i)).result?.taskId, `fresh start ${i} admitted`);
    const refused = await fresh(2);
    assert.equal((refused.error?.data as { reason?: string } | undefined)?.reason, 'running_task_limit');
  } finally {
    for (const gateway of gateways) await gateway.close();
  }
});

test('a slot whose look fails counts as taken: the start takes a free slot, or is refused at the cap', async () => {
  const failing = new Set<string>();
  const real = temporal.client.workflow;
  // The client seam: describes of the holders in `failing` fail (gRPC INTERNAL); the rest is real.
  const workflow = new Proxy(real, {
    get(target, prop) {
      if (prop === 'getHandle') {
        return (workflowId: string, runId?: string) => {
          const handle = target.getHandle(workflowId, runId);
          if (failing.has(workflowId)) {
            handle.describe = () => Promise.reject(Object.assign(new Error('describe failed'), { code: 13 }));
          }
          return handle;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const slots = new RunningTaskSlots({ workflow } as unknown as Client, {
    serverSecret: Buffer.from(TEST_SERVER_SECRET),
    limit: 2,
    calls: { call: (fn) => fn() },
  });
  const taskQueue = `nobody-looks-${process.pid}`;
  const start = (workflowId: string) =>
    temporal.client.workflow.start('idle', { workflowId, taskQueue, args: [] });
  const ended = `looks-ended-${process.pid}`;
  const running = `looks-running-${process.pid}`;
  await (await start(ended)).terminate('ended');
  await start(running);
  const slotOfEnded = await slots.take('looks', ended);
  const slotOfRunning = await slots.take('looks', running);
  failing.add(slotOfRunning.workflowId);
  // Full: the ended run's slot is freed and taken, the one that cannot be looked at is left alone.
  const taken = await slots.take('looks', `looks-next-${process.pid}`);
  assert.equal(taken.workflowId, slotOfEnded.workflowId);
  await assert.rejects(slots.take('looks', `looks-refused-${process.pid}`), RunningTaskLimitError);
  assert.equal(
    (await temporal.client.workflow.getHandle(slotOfRunning.workflowId).describe()).status.name,
    'RUNNING',
  );
  await temporal.client.workflow.getHandle(running).terminate('done');
});

test('a holder of a running run that names another slot is freed when the principal looks full', async () => {
  const slots = new RunningTaskSlots(temporal.client, {
    serverSecret: Buffer.from(TEST_SERVER_SECRET),
    limit: 2,
    calls: { call: (fn) => fn() },
  });
  const run = `twice-${process.pid}`;
  const its = await slots.take('twice', run);
  await temporal.client.workflow.start('idle', {
    workflowId: run,
    taskQueue: `nobody-twice-${process.pid}`,
    args: [],
    memo: { [RUN_SLOT_MEMO]: its },
  });
  // A second start with the run's key, on another replica, took a slot too and never gave it back.
  const stray = await slots.take('twice', run);
  const next = await slots.take('twice', `twice-next-${process.pid}`);
  assert.equal(next.workflowId, stray.workflowId);
  const holders = await runningHolders(TEST_SERVER_SECRET, 'twice', 2);
  assert.deepEqual(holders.sort(), [run, `twice-next-${process.pid}`].sort());
  await temporal.client.workflow.getHandle(run).terminate('done');
});
