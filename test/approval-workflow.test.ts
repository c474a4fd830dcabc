// The approval pause of mineChain, against a real dev server and worker process.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { inputSignal } from '../workflows/mcp-contract.ts';
import {
  type ChainResult,
  MINE_CHAIN_WORKFLOW,
  type MineChainInput,
  type MiningProgressAnswer,
  miningProgressQuery,
} from '../workflows/mining/types.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const TASK_QUEUE = 'approval-test';
let temporal: TestTemporal;
let worker: WorkerProcess;
let dataDir: string;

async function start(extra: Partial<MineChainInput> = {}): Promise<WorkflowHandle> {
  return temporal.client.workflow.start(MINE_CHAIN_WORKFLOW, {
    taskQueue: TASK_QUEUE,
    workflowId: `approval-${randomUUID()}`,
    args: [{ difficulty: 8, blocks: 2, data: 'approve me', requireApproval: true, ...extra }],
  });
}

/** Waits until the workflow shows exactly the given outstanding keys. */
function waitForKeys(handle: WorkflowHandle, keys: string[]): Promise<MiningProgressAnswer> {
  return eventually(
    async () => {
      const progress = await handle.query(miningProgressQuery);
      return JSON.stringify(Object.keys(progress.inputRequests ?? {})) === JSON.stringify(keys)
        ? progress
        : undefined;
    },
    20_000,
    `outstanding keys ${keys.join(', ')}`,
  );
}

describe('mineChain approval', () => {
  before(async () => {
    temporal = await startTestTemporal();
    dataDir = mkdtempSync(join(tmpdir(), 'mcp-gw-ledger-'));
    worker = startWorker({
      ...temporal.env,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      MCP_DATA_DIR: dataDir,
    });
    await worker.ready;
  });

  after(async () => {
    await worker?.stop();
    await temporal?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('pauses with one keyed elicitation request, then publishes to the ledger on approval', async () => {
    const handle = await start();
    const waiting = await waitForKeys(handle, ['approve-publish-1']);
    assert.equal(waiting.mining?.phase, 'awaiting_input');
    assert.equal(waiting.mining?.blocksDone, 2);
    const request = waiting.inputRequests?.['approve-publish-1'];
    assert.equal(request?.method, 'elicitation/create');
    assert.match(request?.params.message ?? '', /final hash [0-9a-f]{64}/);
    // Same key on every poll until answered.
    assert.deepEqual(Object.keys((await handle.query(miningProgressQuery)).inputRequests ?? {}), [
      'approve-publish-1',
    ]);

    await handle.signal(inputSignal, {
      'approve-publish-1': { action: 'accept', content: { approve: true, note: 'ship it' } },
    });
    const result: ChainResult = await handle.result();
    assert.equal(result.publication?.status, 'published');
    assert.ok(result.publication?.status === 'published');
    assert.equal(result.publication.approvedNote, 'ship it');
    const ledgerPath = result.publication.ledgerPath;
    assert.ok(ledgerPath.startsWith(join(dataDir, 'ledger')));
    const entry = JSON.parse(readFileSync(ledgerPath, 'utf8'));
    assert.equal(entry.workflowId, handle.workflowId);
    assert.equal(entry.runId, (await handle.describe()).runId);
    assert.equal(entry.chain.finalHash, result.finalHash);
    assert.deepEqual(Object.keys((await handle.query(miningProgressQuery)).inputRequests ?? {}), []);
  });

  it('ignores unknown and repeated keys; a partial set keeps it waiting; a malformed answer supersedes the key', async () => {
    const handle = await start();
    await waitForKeys(handle, ['approve-publish-1']);
    await handle.signal(inputSignal, {
      'not-a-key': { action: 'accept', content: { approve: true } },
    });
    // A malformed accept (no boolean approve) retires key 1 and asks again under key 2.
    await handle.signal(inputSignal, {
      'approve-publish-1': { action: 'accept', content: { approve: 'y' } },
    });
    const again = await waitForKeys(handle, ['approve-publish-2']);
    assert.match(again.inputRequests?.['approve-publish-2']?.params.message ?? '', /previous answer/);
    // Key 1 is answered: a second answer to it changes nothing.
    await handle.signal(inputSignal, {
      'approve-publish-1': { action: 'accept', content: { approve: true } },
    });
    await waitForKeys(handle, ['approve-publish-2']);
    await handle.signal(inputSignal, { 'approve-publish-2': { action: 'decline' } });
    const result: ChainResult = await handle.result();
    assert.deepEqual(result.publication, { status: 'declined', action: 'decline' });
  });

  it('approve=false does not publish', async () => {
    const handle = await start();
    await waitForKeys(handle, ['approve-publish-1']);
    await handle.signal(inputSignal, {
      'approve-publish-1': { action: 'accept', content: { approve: false, note: 'not now' } },
    });
    const result: ChainResult = await handle.result();
    assert.deepEqual(result.publication, { status: 'declined', action: 'accept', note: 'not now' });
    const ledger = join(dataDir, 'ledger');
    const files = existsSync(ledger) ? readdirSync(ledger) : [];
    assert.ok(!files.some((file) => file.startsWith(handle.workflowId)), `ledger: ${files}`);
  });

  it('gives up when nobody answers before the approval deadline', async () => {
    const handle = await start({ approvalTimeoutMs: 1_500 });
    await waitForKeys(handle, ['approve-publish-1']);
    const result: ChainResult = await handle.result();
    assert.deepEqual(result.publication, { status: 'approval_timed_out', waitedMs: 1_500 });
    assert.deepEqual(Object.keys((await handle.query(miningProgressQuery)).inputRequests ?? {}), []);
  });
});
