// A worker dies mid-block (SIGKILL): another worker picks the block up from the last heartbeat.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { latestHeartbeat } from '../gateway/temporal/view.ts';
import { type ChainResult, MINE_CHAIN_WORKFLOW } from '../workflows/mining/types.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const TASK_QUEUE = 'worker-fault-test';
// At difficulty 29 this block's first valid nonce is 324,545,931: seconds of work on all cores.
const INPUT = { difficulty: 29, blocks: 1, data: 'fault-k' };
const EXPECTED_NONCE = 324_545_931;

let temporal: TestTemporal;
const workers: WorkerProcess[] = [];

describe('worker crash mid-block', () => {
  before(async () => {
    temporal = await startTestTemporal();
  });

  after(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await temporal?.close();
  });

  it('completes on another worker, resuming from the heartbeat nonce instead of 0', async () => {
    const env = { ...temporal.env, TEMPORAL_TASK_QUEUE: TASK_QUEUE };
    const first = startWorker(env);
    workers.push(first);
    await first.ready;
    const handle = await temporal.client.workflow.start(MINE_CHAIN_WORKFLOW, {
      taskQueue: TASK_QUEUE,
      workflowId: `fault-${randomUUID()}`,
      args: [INPUT],
    });

    const beat = await eventually(
      async () => {
        const nonce = (latestHeartbeat(await handle.describe()) as { nonce?: number } | undefined)?.nonce;
        return nonce !== undefined && nonce > 0 ? { nonce } : undefined;
      },
      30_000,
      'a heartbeat with progress',
    );
    assert.ok(beat.nonce < EXPECTED_NONCE, 'killed before the block was found');
    const killed = await first.stop('SIGKILL');
    assert.equal(killed.signal, 'SIGKILL');

    const second = startWorker(env);
    workers.push(second);
    await second.ready;
    const result: ChainResult = await handle.result();
    const [block] = result.blocks;
    assert.ok(block);
    assert.equal(block.nonce, EXPECTED_NONCE, 'the same nonce a single uninterrupted search finds');
    assert.ok(block.attempt >= 2, `found on attempt ${block.attempt}`);
    assert.ok(
      block.startNonce > beat.nonce,
      `retry started at nonce ${block.startNonce}, after the heartbeat at ${beat.nonce}`,
    );
    assert.ok(block.startNonce <= EXPECTED_NONCE);
  });

  it('cancelled while its worker is dead: the run ends cancelled, not failed by the heartbeat timeout', async () => {
    const env = { ...temporal.env, TEMPORAL_TASK_QUEUE: TASK_QUEUE };
    const first = startWorker(env);
    workers.push(first);
    await first.ready;
    const handle = await temporal.client.workflow.start(MINE_CHAIN_WORKFLOW, {
      taskQueue: TASK_QUEUE,
      workflowId: `fault-cancel-${randomUUID()}`,
      args: [INPUT],
    });
    await eventually(
      async () =>
        (latestHeartbeat(await handle.describe()) as { nonce?: number } | undefined)?.nonce
          ? true
          : undefined,
      30_000,
      'a heartbeat with progress',
    );
    await first.stop('SIGKILL');
    await handle.cancel();
    // Back before the block's 10 s heartbeat timeout, as a restarted worker would be.
    const second = startWorker(env);
    workers.push(second);
    await second.ready;
    await assert.rejects(handle.result());
    const described = await handle.describe();
    assert.equal(described.status.name, 'CANCELLED');
  });
});
