// Visibility queries name the caller as a string literal: a principal holding quotes or backslashes
// (an OAuth subject may) lists its own runs and nobody else's, through every path that queries
// visibility (tasks/list, the lost-handle list, a keyed start's look for its run), against a real
// dev server with the running-task cap on.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

let temporal: TestTemporal;
let backend: TemporalBackend;

before(async () => {
  temporal = await startTestTemporal();
  backend = new TemporalBackend(temporal.client, {
    namespace: temporal.namespace,
    callTimeoutMs: 10_000,
    queryTimeoutMs: 1_000,
    serverSecret: Buffer.from(TEST_SERVER_SECRET),
    fleetTaskQueue: 'visibility-principals-gateways',
    maxRunningTasks: 4,
  });
});

after(async () => {
  await temporal?.close();
});

/** A tool whose queue no worker polls: its runs stay Running. */
const tool = {
  name: 'quoted',
  idPrefix: 'quoted',
  workflow: 'idle',
  taskQueue: `nobody-quoted-${process.pid}`,
};

const PRINCIPALS = [`o'brien`, `say "hi"`, 'back\\slash', `' OR McpPrincipal != '`, `o\\'brien`];

test('principals with quotes and backslashes list their own runs only, on every visibility path', async () => {
  const started = new Map<string, string>();
  for (const principal of PRINCIPALS) {
    const run = await backend.starts.run(
      { tool, input: {}, arguments: { who: principal }, summary: 'quoted', idempotencyKey: 'k-1' },
      { principal },
    );
    started.set(principal, run.task.id);
  }
  for (const principal of PRINCIPALS) {
    const caller = { principal };
    const listed = await eventually(
      async () => {
        const page = await backend.listing.all(caller, undefined, 50);
        return page.runs.length > 0 ? page.runs : undefined;
      },
      10_000,
      `the runs of ${principal}`,
    );
    assert.deepEqual(
      listed.map((run) => run.workflowId),
      [started.get(principal)],
      `tasks/list of ${principal}`,
    );
    const recent = await eventually(() => backend.recentRuns.latest(caller, tool.name), 5_000, 'a look');
    assert.deepEqual(
      recent.map((run) => run.workflowId),
      [started.get(principal)],
      `the lost-handle list of ${principal}`,
    );
    // A keyed retry looks its key up by principal too: the same run, never another principal's.
    const again = await backend.starts.run(
      { tool, input: {}, arguments: { who: principal }, summary: 'quoted', idempotencyKey: 'k-1' },
      caller,
    );
    assert.equal(again.task.id, started.get(principal));
  }
});
