// The advised poll interval follows the run, in both answer shapes (Tasks' pollIntervalMs and the
// start/poll handle's poll_after_seconds), against a real dev server, a real worker and the gateway
// over HTTP: clients that follow the advice exactly (and the poll limiter on) see it short after the
// start, steady later, short near the end, long while input_required, the workflow's own suggestion
// within the clamps, and are never refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { PaceStep } from './fixtures/workflows/paced-run.ts';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { PLAIN_CLIENT, rpc, rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { listen } from './support/sse-listen.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

const CATALOG = fileURLToPath(new URL('./fixtures/paced-catalog.yaml', import.meta.url));
const WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/paced-run.ts', import.meta.url));

// Steady 1 s, fast 300 ms (also the limiter's minimum), input 3 s, max 4 s, ±10% jitter.
const PACING_ENV = {
  MCP_POLL_INTERVAL_MS: '1000',
  MCP_POLL_FAST_INTERVAL_MS: '300',
  MCP_POLL_MIN_INTERVAL_MS: '300',
  MCP_POLL_INPUT_INTERVAL_MS: '3000',
  MCP_POLL_MAX_INTERVAL_MS: '4000',
  MCP_POLL_JITTER_PERCENT: '10',
};
type Band = readonly [low: number, high: number];
const FAST: Band = [300, 330];
/** Young: half the run's age, at least the fast interval; under load an answer may come late. */
const YOUNG: Band = [300, 800];
const STEADY: Band = [900, 1_100];
const INPUT: Band = [2_700, 3_300];

let temporal: TestTemporal;
let gateway: TestGateway;
let worker: Worker;
let workerRun: Promise<void>;
let connection: NativeConnection;

before(async () => {
  temporal = await startTestTemporal();
  connection = await NativeConnection.connect({ address: temporal.address });
  worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: 'fixture-paced',
    workflowsPath: WORKFLOWS,
  });
  workerRun = worker.run();
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: 'not-used-by-the-catalog',
    env: { MCP_TOOLS_FILE: CATALOG, ...PACING_ENV },
  });
});

after(async () => {
  await gateway?.close();
  worker?.shutdown();
  await workerRun?.catch(() => {});
  await connection?.close();
  await temporal?.close();
});

/** One answer, in either shape: the advice, the status and the progress message. */
interface Seen {
  intervalMs?: number;
  status: string;
  message?: string;
}

interface Shape {
  name: string;
  start(): Promise<{ id: string; seen: Seen }>;
  /** A poll; fails the test if the gateway refuses it. */
  poll(id: string): Promise<Seen>;
}

function inBand(ms: number | undefined, [low, high]: Band, what: string) {
  assert.ok(ms !== undefined && ms >= low && ms <= high, `${what}: ${ms} ms is not in [${low}, ${high}]`);
}

async function expectAnswered(answer: Awaited<ReturnType<typeof rpc>>, what: string) {
  assert.equal(answer.httpStatus, 200, `${what} refused: ${JSON.stringify(answer.error)}`);
  assert.ok(answer.result, `${what}: no result`);
  return answer.result;
}

const tasksShape: Shape = {
  name: 'Tasks (pollIntervalMs)',
  async start() {
    const created = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'paced_run', arguments: {} },
      TASKS_CLIENT,
    );
    assert.equal(created.resultType, 'task');
    return { id: String(created.taskId), seen: fromTask(created) };
  },
  async poll(id) {
    return fromTask(await expectAnswered(await rpc(gateway.url, 'tasks/get', { taskId: id }), 'tasks/get'));
  },
};

function fromTask(task: Record<string, unknown>): Seen {
  return {
    status: String(task.status),
    ...(typeof task.pollIntervalMs === 'number' ? { intervalMs: task.pollIntervalMs } : {}),
    ...(typeof task.statusMessage === 'string' ? { message: task.statusMessage } : {}),
  };
}

const startPollShape: Shape = {
  name: 'start/poll (poll_after_seconds)',
  async start() {
    const result = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'paced_run', arguments: {} },
      PLAIN_CLIENT,
    );
    const json = result.structuredContent as Record<string, unknown>;
    return { id: String(json.workflow_id), seen: fromHandle(json) };
  },
  async poll(id) {
    const params = { name: 'get_paced_run_result', arguments: { workflow_id: id } };
    const result = await expectAnswered(await rpc(gateway.url, 'tools/call', params, PLAIN_CLIENT), 'poll');
    return fromHandle(result.structuredContent as Record<string, unknown>);
  },
};

function fromHandle(json: Record<string, unknown>): Seen {
  const progress = json.progress as { message?: string } | null | undefined;
  return {
    status: String(json.status),
    ...(typeof json.poll_after_seconds === 'number'
      ? { intervalMs: Math.round(json.poll_after_seconds * 1000) }
      : {}),
    ...(progress?.message ? { message: progress.message } : {}),
  };
}

/**
 * A client that follows the advice exactly: it waits the advised interval (that wait is the
 * behaviour under test), polls, and goes on until `done` accepts an answer or the deadline passes.
 */
async function follow(
  shape: Shape,
  id: string,
  from: Seen,
  done: (seen: Seen) => boolean,
  advised: number[],
) {
  const deadline = Date.now() + 30_000;
  let seen = from;
  for (;;) {
    assert.ok(seen.intervalMs !== undefined, `a ${seen.status} answer without advice`);
    await delay(seen.intervalMs);
    seen = await shape.poll(id);
    if (seen.intervalMs !== undefined) advised.push(seen.intervalMs);
    if (done(seen)) return seen;
    assert.ok(Date.now() < deadline, `gave up following ${id}; last answer ${JSON.stringify(seen)}`);
  }
}

const step = (id: string, pace: PaceStep) => temporal.client.workflow.getHandle(id).signal('pace.step', pace);

for (const shape of [tasksShape, startPollShape]) {
  describe(`the advised interval follows the run: ${shape.name}`, () => {
    test('short after the start, steady later, short near the end, long while input_required, the workflow suggestion within the clamps', async (t) => {
      const advised: number[] = [];
      const { id, seen: started } = await shape.start();
      assert.ok(['working', 'running'].includes(started.status), started.status);
      // The start answered after the 200 ms budget: half the run's age, or the fast interval.
      inBand(started.intervalMs, YOUNG, 'right after the start');

      // Followed, the advice grows with the run's age to the steady interval, never past it.
      const steady = await follow(
        shape,
        id,
        started,
        (s) => s.intervalMs !== undefined && s.intervalMs >= STEADY[0],
        advised,
      );
      inBand(steady.intervalMs, STEADY, 'steady');
      assert.ok(
        advised.every((ms) => ms <= STEADY[1]),
        `above the steady interval early on: ${advised}`,
      );
      assert.ok(
        (started.intervalMs ?? Infinity) < STEADY[0],
        `the start was not advised shorter: ${advised}`,
      );

      // Near the end by progress/total: short again.
      await step(id, { message: 'Almost done', progress: 99, total: 100 });
      const nearEnd = await follow(shape, id, steady, (s) => s.message === 'Almost done', advised);
      inBand(nearEnd.intervalMs, FAST, 'near the end');

      // Waiting for a person: the long input interval.
      await step(id, { ask: true, message: 'Asking' });
      const asking = await follow(shape, id, nearEnd, (s) => s.status === 'input_required', advised);
      inBand(asking.intervalMs, INPUT, 'input_required');

      // Answered, the run goes on; its own suggestion replaces the estimate.
      const handle = temporal.client.workflow.getHandle(id);
      await handle.signal('mcp.input', { 'confirm-1': { action: 'accept', content: { ok: true } } });
      await step(id, { message: 'Suggesting 2 s', pollAfterMs: 2_000 });
      const suggested = await follow(shape, id, asking, (s) => s.message === 'Suggesting 2 s', advised);
      assert.notEqual(suggested.status, 'input_required');
      inBand(suggested.intervalMs, [1_800, 2_200], 'the workflow suggestion');

      // Clamped: a suggestion above the max gives the max, one below the minimum the minimum.
      await step(id, { message: 'Suggesting an hour', pollAfterMs: 3_600_000 });
      const capped = await follow(shape, id, suggested, (s) => s.message === 'Suggesting an hour', advised);
      assert.equal(capped.intervalMs, 4_000);
      await step(id, { message: 'Suggesting 1 ms', pollAfterMs: 1 });
      const floored = await follow(shape, id, capped, (s) => s.message === 'Suggesting 1 ms', advised);
      assert.equal(floored.intervalMs, 300);

      // Ended: no more advice.
      await step(id, { finish: true });
      const ended = await follow(shape, id, floored, (s) => s.status === 'completed', advised);
      assert.equal(ended.intervalMs, undefined);
      // Every poll above followed the advice with the limiter at 300 ms: none was refused (poll
      // fails the test on any refusal), and no advice was below the limiter's minimum.
      assert.ok(
        advised.every((ms) => ms >= 300),
        `advice below the limiter minimum: ${advised}`,
      );
      t.diagnostic(`advised (ms), poll by poll: ${[started.intervalMs, ...advised].join(', ')}`);
    });
  });
}

describe('pushed status carries the advice too', () => {
  test('notifications/tasks: a short interval while young and working, the input interval while input_required', async () => {
    const created = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'paced_run', arguments: {} },
      TASKS_CLIENT,
    );
    const id = String(created.taskId);
    const stream = await listen(gateway.url, { taskIds: [id] });
    try {
      assert.equal((await stream.next(10_000))?.method, 'notifications/subscriptions/acknowledged');
      const pushed = async () => {
        const message = await stream.next(10_000);
        assert.equal(message?.method, 'notifications/tasks', JSON.stringify(message));
        return message?.params as Record<string, unknown>;
      };
      const first = await pushed();
      assert.equal(first.status, 'working');
      // Pushed right after the start: half the run's age, or the fast interval.
      inBand(first.pollIntervalMs as number, YOUNG, 'pushed right after the start');
      await step(id, { ask: true });
      const asking = await pushed();
      assert.equal(asking.status, 'input_required');
      inBand(asking.pollIntervalMs as number, INPUT, 'pushed input_required');
      await step(id, { finish: true });
      const ended = await pushed();
      assert.equal(ended.status, 'completed');
      assert.equal(ended.pollIntervalMs, undefined);
    } finally {
      stream.close();
    }
  });
});
