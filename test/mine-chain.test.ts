// mineChain against a real dev server and a real worker process.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Client, WorkflowFailedError } from '@temporalio/client';
import { hashBlock, leadingZeroBits } from '../activities/pow/block.ts';
import { GENESIS_HASH } from '../workflows/mining/genesis.ts';
import {
  type ChainResult,
  MINE_CHAIN_WORKFLOW,
  type MineChainInput,
  miningProgressQuery,
} from '../workflows/mining/types.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const TASK_QUEUE = 'mine-chain-test';
let temporal: TestTemporal;
let worker: WorkerProcess;
let client: Client;

function start(input: MineChainInput) {
  return client.workflow.start(MINE_CHAIN_WORKFLOW, {
    taskQueue: TASK_QUEUE,
    workflowId: `test-${randomUUID()}`,
    args: [input],
  });
}

describe('mineChain workflow', () => {
  before(async () => {
    temporal = await startTestTemporal();
    client = temporal.client;
    worker = startWorker({ ...temporal.env, TEMPORAL_TASK_QUEUE: TASK_QUEUE });
    await worker.ready;
  });

  after(async () => {
    await worker?.stop();
    await temporal?.close();
  });

  it('publishes its progress on change: a few history events per block, not one per heartbeat', async () => {
    const blocks = 20; // the most a chain may have
    const handle = await start({ difficulty: 12, blocks, data: 'published' });
    await handle.result();
    const counts = new Map<string, number>();
    const history = await client.workflow.getHandle(handle.workflowId).fetchHistory();
    for (const event of history.events ?? []) {
      const type = Object.keys(event).find((k) => k.endsWith('EventAttributes')) ?? 'unknown';
      counts.set(type, (counts.get(type) ?? 0) + 1);
    }
    const upserts = counts.get('workflowPropertiesModifiedEventAttributes') ?? 0;
    const timers = counts.get('timerStartedEventAttributes') ?? 0;
    const markers = counts.get('markerRecordedEventAttributes') ?? 0;
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    console.log(
      `a ${blocks}-block run: ${total} history events, of them ${upserts} memo upserts, ${timers} timers ` +
        `(each two events) and ${markers} patch marker for publishing`,
    );
    // The first, then one per block at most (the changes of one step go as one; a chain faster than
    // a second may finish before its next upsert is due), and one more at the end.
    assert.ok(upserts >= 1 && upserts <= blocks + 2, `memo upserts: ${upserts}`);
    assert.ok(timers <= blocks, `timers: ${timers}`);
    assert.equal(markers, 1);
  });

  it('mines a low-difficulty chain whose blocks link and meet the difficulty', async () => {
    const input = { difficulty: 9, blocks: 4, data: 'linked chain' };
    const handle = await start(input);
    const result: ChainResult = await handle.result();
    assert.equal(result.blocks.length, 4);
    let previousHash = GENESIS_HASH;
    for (const [index, block] of result.blocks.entries()) {
      assert.equal(block.index, index);
      assert.equal(block.previousHash, previousHash, `block ${index} links to its predecessor`);
      assert.equal(
        block.hash,
        hashBlock({ previousHash, index, data: input.data, difficulty: 9 }, block.nonce),
      );
      assert.ok(leadingZeroBits(Buffer.from(block.hash, 'hex')) >= 9);
      assert.equal(block.hashesTried, block.nonce + 1);
      previousHash = block.hash;
    }
    assert.equal(result.finalHash, previousHash);
    assert.equal(
      result.totalHashesTried,
      result.blocks.reduce((sum, b) => sum + b.hashesTried, 0),
    );
  });

  it('answers the progress query, and blocksDone advances while it runs', async () => {
    const handle = await start({ difficulty: 18, blocks: 4, data: 'progress' });
    const seen = new Set<number>();
    const final = eventually(
      async () => {
        const answer = await handle.query(miningProgressQuery);
        const progress = answer.mining;
        assert.ok(progress, 'the answer carries the mining details');
        assert.equal(progress.blocksTotal, 4);
        assert.equal(answer.total, 4);
        seen.add(progress.blocksDone);
        return progress.phase === 'done' ? progress : undefined;
      },
      60_000,
      'the chain to finish',
      50,
    );
    const done = await final;
    await handle.result();
    assert.equal(done.blocksDone, 4);
    assert.ok(seen.size >= 3, `progress seen at ${[...seen].join(', ')} blocks`);
    const sorted = [...seen].sort();
    assert.deepEqual([...seen], sorted, 'blocksDone never goes back');
  });

  it('rejects bad input without retrying', async () => {
    const handle = await start({ difficulty: 0, blocks: 1, data: '' });
    await assert.rejects(handle.result(), (err: unknown) => {
      assert.ok(err instanceof WorkflowFailedError);
      assert.match(String(err.cause?.message), /difficulty must be an integer from 1 to 40/);
      return true;
    });
  });

  it('cancelling mid-block ends the workflow Canceled once the activity has stopped', async () => {
    const handle = await start({ difficulty: 36, blocks: 2, data: 'cancel me' });
    await eventually(
      async () => {
        const { raw } = await handle.describe();
        const pending = raw.pendingActivities?.[0];
        return pending?.heartbeatDetails?.payloads?.length ? pending : undefined;
      },
      20_000,
      'the block to heartbeat',
    );
    await handle.cancel();
    await assert.rejects(handle.result(), /cancel/i);
    assert.equal((await handle.describe()).status.name, 'CANCELLED');
    const events = (await handle.fetchHistory()).events ?? [];
    const requested = events.find((e) => e.activityTaskCancelRequestedEventAttributes);
    const canceled = events.find((e) => e.activityTaskCanceledEventAttributes);
    assert.ok(requested, 'activity cancellation requested');
    assert.ok(canceled, 'the activity acknowledged the cancellation, so it stopped');
    const seconds = (e: typeof requested) =>
      Number(e?.eventTime?.seconds ?? 0) + (e?.eventTime?.nanos ?? 0) / 1e9;
    const reaction = seconds(canceled) - seconds(requested);
    assert.ok(reaction < 3, `activity stopped ${reaction.toFixed(2)} s after the request`);
  });
});
