// The running-task cap against a real dev server: a task under the cap runs under one of its
// principal's slot ids, so an ended task leaves nothing Running and its slot is taken again by the
// next start, as is one timed out past its tool's maximum duration; concurrent keyed starts of one
// run, through two gateways, answer one run and keep one slot (the key's record names it; a run
// whose record lost is ended); a task whose slot a later task holds is still found (its run among
// the slot's runs); a slot that cannot be looked at counts as taken, and no more; the look
// describes a bounded number of slots at once; a keyed start whose record was never written is
// found again by its retry.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import { RunningTaskLimitError } from '../gateway/temporal/errors.ts';
import { KEY_WORKFLOW_TYPE } from '../gateway/temporal/keyed-start.ts';
import { RunningTaskSlots } from '../gateway/temporal/slots.ts';
import {
  keyedSlotStart,
  keyedTaskId,
  slotWorkflowId,
  taskKey,
  taskSlot,
} from '../gateway/temporal/task-ids.ts';
import { DEFAULT_CAP, startGateway, TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { rpc, TASKS_CLIENT } from './support/mcp-http.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

let temporal: TestTemporal;
const SECRET = Buffer.from(TEST_SERVER_SECRET);

before(async () => {
  temporal = await startTestTemporal();
});

after(async () => {
  await temporal?.close();
});

function backendWith(limit: number): TemporalBackend {
  return new TemporalBackend(temporal.client, {
    namespace: temporal.namespace,
    callTimeoutMs: 10_000,
    queryTimeoutMs: 1_000,
    serverSecret: SECRET,
    fleetTaskQueue: 'running-slots-gateways',
    maxRunningTasks: limit,
  });
}

/** Deletes a key's record, as a gateway killed between the run's start and the record leaves none. */
async function deleteRecord(record: { workflowId: string; runId: string }): Promise<void> {
  await temporal.client.workflowService.deleteWorkflowExecution({
    namespace: temporal.namespace,
    workflowExecution: { workflowId: record.workflowId, runId: record.runId },
  });
  await eventually(
    () =>
      temporal.client.workflow
        .getHandle(record.workflowId)
        .describe()
        .then(
          () => undefined,
          () => true,
        ),
    10_000,
    'the record to be gone',
  );
}

/** A tool whose queue no worker polls: its runs stay Running, as a long task does. */
function idleTool(name: string) {
  return { name, idPrefix: name, workflow: 'idle', taskQueue: `nobody-${name}-${process.pid}` };
}

test('a task runs under a slot id; once it ends, nothing of the cap is running and its slot is taken again', async () => {
  const backend = backendWith(1);
  const tool = idleTool('single');
  const caller = { principal: 'single' };
  const first = await backend.starts.run({ tool, input: {}, arguments: { i: 1 }, summary: 'one' }, caller);
  const slotId = slotWorkflowId(SECRET, 'single', 0);
  assert.equal(taskSlot(first.task.id), 0);
  assert.deepEqual(first.run.workflowId, slotId);
  await assert.rejects(
    backend.starts.run({ tool, input: {}, arguments: { i: 2 }, summary: 'two' }, caller),
    RunningTaskLimitError,
  );
  assert.ok(await backend.actions.cancel(first.task.id, caller));
  await temporal.client.workflow.getHandle(first.run.workflowId, first.run.runId).terminate('ended');
  const running = await temporal.client.workflow.count(
    `WorkflowId = "${slotId}" AND ExecutionStatus = "Running"`,
  );
  assert.equal(running.count, 0, 'nothing of the cap is left running');
  // The refusal above is remembered for a second: the next start comes once it has passed.
  const second = await eventually(
    () =>
      backend.starts
        .run({ tool, input: {}, arguments: { i: 3 }, summary: 'three' }, caller)
        .catch(() => undefined),
    5_000,
    'the slot to be taken again',
    200,
  );
  assert.equal(second.run.workflowId, slotId);
  assert.notEqual(second.task.id, first.task.id);
  // The first task is found still, though a later task holds its slot: its run among the slot's runs.
  const view = await eventually(
    async () => {
      const found = await backend.views.read(first.task.id, caller);
      return found?.state.status === 'failed' ? found : undefined;
    },
    10_000,
    'the first task, ended, to be found',
  );
  assert.equal(view.run.runId, first.run.runId);
  const secondView = await backend.views.read(second.task.id, caller);
  assert.equal(secondView?.state.status, 'running');
  await temporal.client.workflow.getHandle(second.run.workflowId).terminate('done');
});

test('a run past its maximum duration is timed out by Temporal, answered failed, and its slot is taken again', async () => {
  const backend = backendWith(1);
  const tool = { ...idleTool('brief'), maxDurationMs: 1_000 };
  const caller = { principal: 'brief' };
  const first = await backend.starts.run({ tool, input: {}, arguments: { i: 1 }, summary: 'one' }, caller);
  // Temporal's own timeout ends it: awaited, with nobody polling the gateway.
  await assert.rejects(
    temporal.client.workflow.getHandle(first.run.workflowId, first.run.runId).result(),
    /timed out/i,
  );
  const second = await backend.starts.run({ tool, input: {}, arguments: { i: 2 }, summary: 'two' }, caller);
  assert.equal(second.run.workflowId, first.run.workflowId, 'the slot is taken again');
  const view = await backend.views.read(first.task.id, caller);
  assert.equal(view?.state.status, 'failed');
  assert.equal(view?.state.status === 'failed' && view.state.reason, 'timed_out');
  await temporal.client.workflow.getHandle(second.run.workflowId).terminate('done');
});

test('concurrent keyed starts of one run through two gateways answer one run and hold one slot', async () => {
  const token = 'keyed-token-0123456789abcdef';
  const env = { MCP_AUTH_TOKENS: `keyed:${token}`, MCP_MAX_RUNNING_TASKS: '3' };
  // No worker polls this queue: the runs stay Running.
  const taskQueue = `nobody-keyed-${process.pid}`;
  const gateways = await Promise.all(
    [1, 2].map(() =>
      startGateway({
        temporalAddress: temporal.address,
        temporalNamespace: temporal.namespace,
        taskQueue,
        waitBudgetMs: 100,
        env,
      }),
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
    const ids = new Set(answers.map((answer) => String(answer.result?.taskId)));
    assert.equal(ids.size, 1, JSON.stringify(answers.map((a) => a.error ?? a.result?.taskId)));
    const [taskId] = [...ids] as [string];
    assert.notEqual(taskSlot(taskId), undefined, 'the keyed task names its slot');
    const slots = [0, 1, 2].map((i) => slotWorkflowId(SECRET, 'keyed', i));
    const running = await temporal.client.workflow.count(
      `WorkflowId IN (${slots.map((id) => `"${id}"`).join(', ')}) AND ExecutionStatus = "Running"`,
    );
    assert.equal(running.count, 1, 'one run holds a slot');
    const records = await temporal.client.workflow.count(`WorkflowType = "${KEY_WORKFLOW_TYPE}"`);
    assert.equal(records.count, 1, 'one record of the key');
    // The same key again answers the same run.
    assert.equal((await call(3, args)).result?.taskId, taskId);
    // Two more runs fit under the cap of 3, and no third.
    const fresh = (i: number) => call(i, { difficulty: 1, blocks: 1, data: `fresh ${i}` });
    for (const i of [0, 1]) assert.ok((await fresh(i)).result?.taskId, `fresh start ${i} admitted`);
    const refused = await fresh(2);
    assert.equal((refused.error?.data as { reason?: string } | undefined)?.reason, 'running_task_limit');
  } finally {
    for (const gateway of gateways) await gateway.close();
  }
});

/**
 * The client seam: describes of the slots in `failing` fail (gRPC INTERNAL), the rest are real;
 * every describe is counted, and the most in flight at once.
 */
function describeSeam() {
  const failing = new Set<string>();
  const seen = { describes: 0, inFlight: 0, most: 0 };
  const real = temporal.client.workflow;
  const workflow = new Proxy(real, {
    get(target, prop) {
      if (prop === 'getHandle') {
        return (workflowId: string, runId?: string) => {
          const handle = target.getHandle(workflowId, runId);
          const describe = handle.describe.bind(handle);
          handle.describe = async () => {
            seen.describes++;
            seen.most = Math.max(seen.most, ++seen.inFlight);
            try {
              // A failing look takes a round trip too, as a real failure does.
              const described = await describe().catch(() => undefined);
              if (failing.has(workflowId)) throw Object.assign(new Error('describe failed'), { code: 13 });
              return described ?? (await describe());
            } finally {
              seen.inFlight--;
            }
          };
          return handle;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client: { workflow } as unknown as Client, failing, seen };
}

/** Starts an idle run in the slot it is given (as start.ts does, with no worker on the queue). */
function idleStartIn(name: string) {
  const taskQueue = `nobody-${name}-${process.pid}`;
  return (workflowId: string) =>
    temporal.client.workflow.start('idle', {
      workflowId,
      taskQueue,
      args: [],
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
}

/** Starts in the first slot to try that is not held, as start.ts does. */
async function startInSlots(
  slots: RunningTaskSlots,
  principal: string,
  startIn: ReturnType<typeof idleStartIn>,
  first?: number,
) {
  for await (const { workflowId } of slots.toTry(principal, first)) {
    const started = await startIn(workflowId).catch((err) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return undefined;
      throw err;
    });
    if (started) return started;
  }
  throw new Error('no refusal');
}

test('a slot whose look fails counts as taken: the start takes a free slot, or is refused at the cap', async () => {
  const { client, failing } = describeSeam();
  const limit = 8;
  const slots = new RunningTaskSlots(client, { serverSecret: SECRET, limit, calls: { call: (fn) => fn() } });
  const startIn = idleStartIn('looks');
  // Tries begin at slot 0: six starts hold slots 0-5; slots 6 and 7 are free, and only a look finds them.
  const held = [];
  for (let i = 0; i < 6; i++) held.push(await startInSlots(slots, 'looks', startIn, 0));
  const [six, seven] = [6, 7].map((slot) => slotWorkflowId(SECRET, 'looks', slot)) as [string, string];
  const neverStarted = async (workflowId: string) =>
    temporal.client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        () => false,
        () => true,
      );
  // Both free slots cannot be looked at: the start is refused at the cap, and neither is started.
  failing.add(six);
  failing.add(seven);
  await assert.rejects(startInSlots(slots, 'looks', startIn, 0), RunningTaskLimitError);
  assert.ok((await neverStarted(six)) && (await neverStarted(seven)), 'a slot not looked at is left alone');
  // One of them can be looked at again: the start takes that free slot, never the one it cannot see.
  failing.delete(seven);
  const taken = await startInSlots(slots, 'looks', startIn, 0);
  held.push(taken);
  assert.equal(taken.workflowId, seven);
  assert.ok(await neverStarted(six), 'the slot not looked at is still left alone');
  await assert.rejects(startInSlots(slots, 'looks', startIn, 0), RunningTaskLimitError);
  for (const handle of held) await handle.terminate('done');
});

test('the look at a large cap describes 16 slots at a time and stops at the first free slot it takes', async () => {
  const { client, failing, seen } = describeSeam();
  const slots = new RunningTaskSlots(client, {
    serverSecret: SECRET,
    limit: 1_000,
    calls: { call: (fn) => fn() },
  });
  const startIn = idleStartIn('sweep');
  // Tries begin at slot 0: the six starts hold slots 0-5, the six a start tries before looking.
  const held = [];
  for (let i = 0; i < 6; i++) held.push(await startInSlots(slots, 'sweep', startIn, 0));
  // Slots 6-40 cannot be looked at (they count as held): the first free one is 41, in the third batch.
  for (let i = 6; i <= 40; i++) failing.add(slotWorkflowId(SECRET, 'sweep', i));
  seen.describes = 0;
  const next = await startInSlots(slots, 'sweep', startIn, 0);
  held.push(next);
  assert.equal(next.workflowId, slotWorkflowId(SECRET, 'sweep', 41));
  assert.equal(seen.describes, 48, 'three batches of 16 described, not the 1,000 slots');
  assert.equal(seen.most, 16, 'at most 16 describes at once');
  for (const handle of held) await handle.terminate('done');
});

test('a keyed start whose gateway died before the key was recorded: a retry elsewhere answers that run, not a second', async () => {
  const tool = idleTool('orphan');
  const caller = { principal: 'orphan' };
  const request = { tool, input: {}, arguments: { i: 1 }, summary: 'keyed', idempotencyKey: 'order-7' };
  const first = await backendWith(5).starts.run(request, caller);
  // The record's absence is what a gateway killed between the run's start and the record leaves.
  const recordId = `mcp-key-${keyedTaskId(SECRET, 'orphan', tool, 'order-7')}`;
  const record = await temporal.client.workflow.getHandle(recordId).describe();
  assert.equal((record.memo as { task?: string } | undefined)?.task, first.task.id, 'the key has its record');
  await deleteRecord(record);
  const retry = await backendWith(5).starts.run(request, caller);
  assert.equal(retry.task.id, first.task.id, 'the retry answers the task the first start began');
  assert.equal(retry.run.runId, first.run.runId);
  const slots = Array.from({ length: 5 }, (_, i) => `"${slotWorkflowId(SECRET, 'orphan', i)}"`);
  const running = await temporal.client.workflow.count(
    `WorkflowId IN (${slots.join(', ')}) AND ExecutionStatus = "Running"`,
  );
  assert.equal(running.count, 1, 'one run of the key');
  // Recorded now: a third start reads the record.
  const third = await backendWith(5).starts.run(request, caller);
  assert.equal(third.run.runId, first.run.runId);
  await temporal.client.workflow.getHandle(first.run.workflowId, first.run.runId).terminate('done');
});

test('a keyed start whose first slot was busy, then freed, and whose record was never written: its retry answers the run it began, found by McpTaskId', async () => {
  const tool = idleTool('busyfirst');
  const caller = { principal: 'busyfirst' };
  const limit = 3;
  const request = { tool, input: {}, arguments: { i: 1 }, summary: 'keyed', idempotencyKey: 'order-9' };
  const keyId = keyedTaskId(SECRET, 'busyfirst', tool, 'order-9');
  const firstSlot = keyedSlotStart(SECRET, keyId).first % limit;
  // Another run holds the slot the key tries first: the keyed start runs in another one.
  const occupier = await temporal.client.workflow.start('idle', {
    workflowId: slotWorkflowId(SECRET, 'busyfirst', firstSlot),
    taskQueue: tool.taskQueue,
    args: [],
  });
  const first = await backendWith(limit).starts.run(request, caller);
  assert.notEqual(taskSlot(first.task.id), firstSlot, 'the first attempt ran in another slot');
  assert.equal(taskKey(first.task.id), keyId, 'the keyed task id is its key and its run');
  // Visibility lists a run soon after its start, not at once.
  const byKey = await eventually(
    async () => {
      const { count } = await temporal.client.workflow.count(`McpTaskId = "${keyId}"`);
      return count > 0 ? count : undefined;
    },
    10_000,
    'McpTaskId to find the run by the id a user quotes, up to its run part',
  );
  assert.equal(byKey, 1);
  // The gateway died before the key's record; then the slot it tried first frees.
  const recordId = `mcp-key-${keyId}`;
  const record = await temporal.client.workflow.getHandle(recordId).describe();
  await deleteRecord(record);
  await occupier.terminate('the first slot frees');
  const retry = await backendWith(limit).starts.run(request, caller);
  assert.equal(retry.task.id, first.task.id, 'the retry answers the task the first start began');
  assert.equal(retry.run.runId, first.run.runId);
  // Read from the run itself: the freed slot's latest run is still the ended occupier.
  const freed = await temporal.client.workflow.getHandle(occupier.workflowId).describe();
  assert.equal(freed.runId, occupier.firstExecutionRunId, 'no run started in the freed slot');
  // Visibility sees the occupier's end a moment later: then one run of the key is running, no second.
  const slots = Array.from({ length: limit }, (_, i) => `"${slotWorkflowId(SECRET, 'busyfirst', i)}"`);
  const query = `WorkflowId IN (${slots.join(', ')}) AND ExecutionStatus = "Running"`;
  await eventually(
    async () => ((await temporal.client.workflow.count(query)).count === 1 ? true : undefined),
    10_000,
    'one run of the key running, none started in the freed slot',
  );
  await temporal.client.workflow.getHandle(first.run.workflowId, first.run.runId).terminate('done');
});

// Within 2 s, or 2.5 times what Temporal itself takes for 60 plain starts at once (a loaded
// machine's dev server may take longer than 2 s for them; each start through the gateway is an MCP
// request too). Before starts stopped waiting their turn, 38 of 60 waited out the 10 s deadline.
test('60 starts of one principal at once: each starts or is refused within 2 s, retryably; the cap holds exactly', async () => {
  const token = 'burst-token-0123456789abcdef';
  const taskQueue = `nobody-burst-${process.pid}`;
  const headers = { authorization: `Bearer ${token}` };
  const burst = async (env: Record<string, string>, principal: string) => {
    const gateway = await startGateway({
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      taskQueue,
      waitBudgetMs: 0,
      // The deployed call deadline.
      temporalTimeoutMs: 10_000,
      env: { MCP_AUTH_TOKENS: `${principal}:${token}`, ...env },
    });
    try {
      const call = async (i: number) => {
        const sent = performance.now();
        const args = { difficulty: 1, blocks: 1, data: `burst ${i}` };
        const answer = await rpc(
          gateway.url,
          'tools/call',
          { name: 'start_mining', arguments: args },
          TASKS_CLIENT,
          headers,
        );
        return { answer, ms: Math.round(performance.now() - sent) };
      };
      return await Promise.all(Array.from({ length: 60 }, (_, i) => call(i)));
    } finally {
      await gateway.close();
    }
  };
  const reasonOf = (answer: { error?: { data?: unknown } }) =>
    (answer.error?.data as { reason?: string } | undefined)?.reason;
  const summary = (calls: Awaited<ReturnType<typeof burst>>) => {
    const times = calls.map((c) => c.ms).sort((a, b) => a - b);
    const refused = new Map<string, number>();
    for (const { answer } of calls) {
      const reason = reasonOf(answer);
      if (reason) refused.set(reason, (refused.get(reason) ?? 0) + 1);
    }
    const started = calls.filter((c) => c.answer.result?.taskId).length;
    return { started, refused, median: times[30], max: times[59] as number };
  };
  const running = async (principal: string, limit: number) => {
    const slots = Array.from({ length: limit }, (_, i) => `"${slotWorkflowId(SECRET, principal, i)}"`);
    return (
      await temporal.client.workflow.count(
        `WorkflowId IN (${slots.join(', ')}) AND ExecutionStatus = "Running"`,
      )
    ).count;
  };
  // Temporal's own time for the burst: 60 plain starts at once, for the bound on a loaded machine.
  const raw = await Promise.all(
    Array.from({ length: 60 }, async (_, i) => {
      const sent = performance.now();
      await temporal.client.workflow.start('idle', {
        workflowId: `burst-raw-${process.pid}-${i}`,
        taskQueue,
        args: [],
      });
      return Math.round(performance.now() - sent);
    }),
  );
  const rawMax = Math.max(...raw);
  const boundMs = Math.max(2_000, Math.round(rawMax * 2.5));
  // As deployed: a cap of 100, at most 50 starts a second (the documented defaults).
  const asDeployed = summary(await burst({ ...DEFAULT_CAP, MCP_MAX_STARTS_PER_SECOND: '50' }, 'burst'));
  // A cap below the burst, no rate bound: the cap alone refuses.
  const capped = summary(
    await burst({ MCP_MAX_RUNNING_TASKS: '40', MCP_MAX_STARTS_PER_SECOND: '0' }, 'capped'),
  );
  console.log(
    `burst of 60: Temporal alone max ${rawMax} ms; as deployed ${asDeployed.started} started, refused ${JSON.stringify([...asDeployed.refused])}, ` +
      `median ${asDeployed.median} ms, max ${asDeployed.max} ms; under a cap of 40 ${capped.started} started, ` +
      `refused ${JSON.stringify([...capped.refused])}, median ${capped.median} ms, max ${capped.max} ms`,
  );
  for (const side of [asDeployed, capped]) {
    assert.ok(side.max < boundMs, `every start answered within ${boundMs} ms (max ${side.max} ms)`);
    for (const reason of side.refused.keys())
      assert.ok(['start_rate_limit', 'running_task_limit'].includes(reason), `refused as ${reason}`);
  }
  assert.equal(asDeployed.started + (asDeployed.refused.get('start_rate_limit') ?? 0), 60);
  assert.ok(asDeployed.started >= 50, `a second's worth of starts all start (${asDeployed.started})`);
  assert.equal(capped.started, 40, 'the cap of 40 is reached, no more');
  assert.equal(capped.refused.get('running_task_limit'), 20);
  await eventually(
    async () => ((await running('capped', 40)) === 40 ? true : undefined),
    10_000,
    '40 runs to hold the 40 slots',
  );
  await eventually(
    async () => ((await running('burst', 100)) === asDeployed.started ? true : undefined),
    10_000,
    'every started run to be Running',
  );
});
