// The worker process's life cycle: start, graceful stop, and an unreachable Temporal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../launcher/free-port.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker } from './support/worker-process.ts';

let temporal: TestTemporal;

describe('worker process', () => {
  before(async () => {
    temporal = await startTestTemporal();
  });
  after(async () => {
    await temporal?.close();
  });

  it('says which queue it polls and stops gracefully on SIGTERM', async () => {
    const worker = startWorker({
      ...temporal.env,
      TEMPORAL_TASK_QUEUE: 'lifecycle-q',
    });
    await worker.ready;
    assert.ok(
      worker.output().includes(`polling task queue "lifecycle-q" in namespace "${temporal.namespace}"`),
      worker.output(),
    );
    const exit = await worker.stop('SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null, killed: false });
    assert.match(worker.output(), /worker: stopped/);
  });

  it('exits non-zero naming the address when Temporal stays unreachable', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const worker = startWorker({ TEMPORAL_ADDRESS: address, TEMPORAL_CONNECT_TIMEOUT_MS: '1500' });
    await assert.rejects(worker.ready, /exited \(code 1/);
    const elapsed = Date.now() - started;
    assert.match(worker.output(), new RegExp(`cannot reach Temporal at ${address} after 1500 ms`));
    assert.ok(elapsed < 15_000, `gave up after ${elapsed} ms`);
  });

  it('refuses a malformed setting with a clear message', async () => {
    const worker = startWorker({
      ...temporal.env,
      WORKER_MAX_CONCURRENT_ACTIVITIES: 'lots',
    });
    await assert.rejects(worker.ready, /exited \(code 1/);
    assert.match(worker.output(), /WORKER_MAX_CONCURRENT_ACTIVITIES must be a positive integer, got "lots"/);
  });
});
