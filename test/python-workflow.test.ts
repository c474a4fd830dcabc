// The Python SDK fixture (test/fixtures/python) against a real dev server, without the gateway:
// the `reviewDraft` workflow keeps the gateway's plain-JSON contract (mcp.progress, mcp.input,
// McpToolError, cancellation).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  ApplicationFailure,
  CancelledFailure,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { type PythonWorker, startPythonWorker } from './support/python-worker.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

interface Progress {
  message?: string;
  progress?: number;
  total?: number;
  inputRequests?: Record<string, unknown>;
}

const TASK_QUEUE = `python-review-${randomUUID()}`;

let temporal: TestTemporal;
let worker: PythonWorker;

async function startReview(): Promise<WorkflowHandle> {
  return temporal.client.workflow.start('reviewDraft', {
    taskQueue: TASK_QUEUE,
    workflowId: `review-${randomUUID()}`,
    args: [{ text: 'hello brave new world', steps: 3, step_ms: 200 }],
  });
}

/** Polls `mcp.progress` until the approval is asked for; returns every answer seen on the way. */
async function untilApprovalAsked(handle: WorkflowHandle): Promise<Progress[]> {
  const seen: Progress[] = [];
  await eventually(
    async () => {
      const progress = await handle.query<Progress>('mcp.progress');
      seen.push(progress);
      return progress.inputRequests?.['approve-1'] ? progress : undefined;
    },
    30_000,
    'the approve-1 input request',
    50,
  );
  return seen;
}

describe('Python SDK workflow fixture', () => {
  before(async () => {
    temporal = await startTestTemporal();
    worker = startPythonWorker({
      ...temporal.env,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    });
    await worker.ready;
  });
  after(async () => {
    await worker?.stop();
    await temporal?.close();
  });

  // Each run spends ~3 s in the dev server's timers (they fire on a ~1 s tick), so they run side by side.
  describe('runs', { concurrency: true }, () => {
    it('reports progress, asks for approval and returns the draft once accepted', async () => {
      const handle = await startReview();
      const seen = await untilApprovalAsked(handle);
      assert.ok(
        seen.some((p) => /^Drafting step [123] of 3$/.test(p.message ?? '') && p.total === 3),
        `no drafting progress among ${JSON.stringify(seen)}`,
      );
      assert.deepEqual(seen.at(-1), {
        message: 'Waiting for a reviewer',
        progress: 3,
        total: 3,
        inputRequests: {
          'approve-1': {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'Publish the draft of 4 words?',
              requestedSchema: {
                type: 'object',
                properties: { approve: { type: 'boolean', title: 'Publish' } },
                required: ['approve'],
              },
            },
          },
        },
      });

      // The same answer is published to the memo (this run was started without McpTaskStatus).
      const published = (await handle.describe()).memo?.['mcp.progress'];
      assert.deepEqual(published, seen.at(-1));

      // The unknown key is ignored; the known one ends the wait.
      await handle.signal('mcp.input', {
        'not-asked': { action: 'accept', content: { approve: false } },
        'approve-1': { action: 'accept', content: { approve: true } },
      });
      assert.deepEqual(await handle.result(), { draft: 'HELLO BRAVE NEW WORLD', words: 4, approved: true });
    });

    it('fails with a non-retryable McpToolError when the reviewer declines', async () => {
      const handle = await startReview();
      await untilApprovalAsked(handle);
      await handle.signal('mcp.input', { 'approve-1': { action: 'decline' } });
      const err = await handle.result().then(
        () => assert.fail('the run should have failed'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkflowFailedError, `not a WorkflowFailedError: ${err}`);
      assert.ok(err.cause instanceof ApplicationFailure, `cause is not an ApplicationFailure: ${err.cause}`);
      assert.equal(err.cause.type, 'McpToolError');
      assert.equal(err.cause.message, 'The reviewer declined the draft');
      assert.equal(err.cause.nonRetryable, true);
    });

    it('ends as cancelled when cancellation is requested while it waits', async () => {
      const handle = await startReview();
      await untilApprovalAsked(handle);
      await handle.cancel();
      await assert.rejects(
        handle.result(),
        (e: unknown) => e instanceof WorkflowFailedError && e.cause instanceof CancelledFailure,
      );
      assert.equal((await handle.describe()).status.name, 'CANCELLED');
    });
  });

  it('stops gracefully on SIGTERM', async () => {
    assert.match(worker.output(), new RegExp(`^python-worker: polling ${TASK_QUEUE}$`, 'm'));
    const exit = await worker.stop();
    assert.deepEqual(exit, { code: 0, signal: null, killed: false }, worker.output());
    assert.match(worker.output(), /python-worker: stopped/);
  });
});
