// The running-task cap's bookkeeping on one gateway, against a real dev server: a slot kept for a
// wait is let go however the wait ends, including a wait that never began (a budget of 0, a client
// already gone), so a gateway's memory does not grow with every start.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
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
