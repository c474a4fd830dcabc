// Human in the loop end to end: a run pauses for approval before publishing; the answer comes
// through tasks/update (Tasks clients) or respond_to_mining (start/poll clients), or never comes.
// Real dev server, real worker process, the gateway on a free port, real clients over HTTP.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ChainResult } from '../workflows/mining/types.ts';
import type { TestGateway } from './support/gateway-server.ts';
import { connectV1, structured } from './support/mcp-clients.ts';
import { rpc, rpcResult } from './support/mcp-http.ts';
import { startTestStack, type TestStack } from './support/stack.ts';
import { eventually } from './support/temporal.ts';

const KEY = 'approve-publish-1';
/** Mining is instant at this size; the wait is the person's. */
const APPROVAL_JOB = { difficulty: 6, blocks: 2, data: 'needs a yes', require_approval: true };

let stack: TestStack | undefined;
let gateway: TestGateway;
/** Approval deadline 2 s, and approval required above 1,000 estimated hashes. */
let strict: TestGateway;
let v1: V1Client;

before(async () => {
  stack = await startTestStack('approval-e2e');
  gateway = stack.gateway;
  strict = await stack.extraGateway({
    env: { MCP_APPROVAL_TIMEOUT_MS: '2000', MCP_APPROVAL_THRESHOLD_HASHES: '1000' },
  });
  v1 = await connectV1(gateway.url);
});

after(async () => {
  await v1?.close().catch(() => {});
  await stack?.close();
});

async function startTask(target: TestGateway, args: Record<string, unknown> = APPROVAL_JOB): Promise<string> {
  const created = await rpcResult(target.url, 'tools/call', { name: 'start_mining', arguments: args });
  assert.equal(created.resultType, 'task');
  return created.taskId as string;
}

function getTask(target: TestGateway, taskId: string): Promise<Record<string, unknown>> {
  return rpcResult(target.url, 'tasks/get', { taskId });
}

function pollTask(target: TestGateway, taskId: string, status: string): Promise<Record<string, unknown>> {
  return eventually(
    async () => {
      const task = await getTask(target, taskId);
      return task.status === status ? task : undefined;
    },
    30_000,
    `task ${taskId} to be ${status}`,
  );
}

function update(taskId: string, inputResponses: Record<string, unknown>) {
  return rpcResult(gateway.url, 'tasks/update', { taskId, inputResponses });
}

function taskResult(task: Record<string, unknown>) {
  const result = task.result as {
    isError?: boolean;
    structuredContent: { result: ChainResult; message?: string };
  };
  return { isError: result.isError === true, ...result.structuredContent };
}

describe('approval through the Tasks extension', () => {
  test('input_required with one elicitation request; unknown keys ignored; approve publishes', async () => {
    const taskId = await startTask(gateway);
    const waiting = await pollTask(gateway, taskId, 'input_required');
    GetTaskResultV2Schema.parse(waiting);
    const requests = waiting.inputRequests as Record<string, { method: string; params: { message: string } }>;
    assert.deepEqual(Object.keys(requests), [KEY]);
    assert.equal(requests[KEY]?.method, 'elicitation/create');
    assert.match(requests[KEY]?.params.message ?? '', /final hash [0-9a-f]{64}/);

    // An unknown key is acknowledged and ignored: the same request stays outstanding.
    const ack = await update(taskId, {
      'approve-publish-9': { action: 'accept', content: { approve: true } },
    });
    assert.equal(ack.resultType, 'complete');
    const still = await getTask(gateway, taskId);
    assert.equal(still.status, 'input_required');
    assert.deepEqual(Object.keys(still.inputRequests as object), [KEY]);

    await update(taskId, { [KEY]: { action: 'accept', content: { approve: true, note: 'looks good' } } });
    const done = taskResult(await pollTask(gateway, taskId, 'completed'));
    assert.equal(done.isError, false);
    assert.equal(done.result.publication?.status, 'published');
    assert.ok(done.result.publication?.status === 'published');
    assert.ok(existsSync(done.result.publication.ledgerPath), 'the ledger file was written');
    assert.match(done.message ?? '', /published to the ledger/);

    // A repeated answer to the answered key changes nothing.
    await update(taskId, { [KEY]: { action: 'decline' } });
    assert.equal(taskResult(await getTask(gateway, taskId)).result.publication?.status, 'published');
  });

  test('decline → completed with isError saying the person declined', async () => {
    const taskId = await startTask(gateway);
    await pollTask(gateway, taskId, 'input_required');
    await update(taskId, { [KEY]: { action: 'decline' } });
    const task = await pollTask(gateway, taskId, 'completed');
    GetTaskResultV2Schema.parse(task);
    const done = taskResult(task);
    assert.equal(done.isError, true);
    assert.deepEqual(done.result.publication, { status: 'declined', action: 'decline' });
    assert.match(done.message ?? '', /declined publishing/);
    assert.match(String(task.statusMessage), /declined/);
  });

  test('no answer before the deadline → completed with isError saying the approval timed out', async () => {
    const taskId = await startTask(strict);
    await pollTask(strict, taskId, 'input_required');
    const done = taskResult(await pollTask(strict, taskId, 'completed'));
    assert.equal(done.isError, true);
    assert.deepEqual(done.result.publication, { status: 'approval_timed_out', waitedMs: 2000 });
    assert.match(done.message ?? '', /approval timed out/);
  });

  test('a malformed inputResponses is invalid params, and the request stays outstanding', async () => {
    const taskId = await startTask(gateway);
    await pollTask(gateway, taskId, 'input_required');
    const answer = await rpc(gateway.url, 'tasks/update', {
      taskId,
      inputResponses: { [KEY]: { action: 'yes' } },
    });
    assert.equal(answer.error?.code, -32602);
    assert.deepEqual(Object.keys((await getTask(gateway, taskId)).inputRequests as object), [KEY]);
    await rpcResult(gateway.url, 'tasks/cancel', { taskId });
    await pollTask(gateway, taskId, 'cancelled');
  });
});

describe('approval through start/poll (2025-11-25 client)', () => {
  async function startPoll(args: Record<string, unknown> = APPROVAL_JOB, client = v1) {
    const first = structured(await client.callTool({ name: 'start_mining', arguments: args }));
    assert.equal(first.status, 'input_required');
    const requests = first.input_requests as Record<string, unknown>;
    assert.deepEqual(Object.keys(requests), [KEY]);
    assert.match(String(first.next), /respond_to_mining/);
    return first.workflow_id as string;
  }

  const respond = (workflow_id: string, args: Record<string, unknown>) =>
    v1.callTool({ name: 'respond_to_mining', arguments: { workflow_id, ...args } });

  test('a wrong key is refused without effect; approve answers with the published result inline', async () => {
    const id = await startPoll();
    const wrong = await respond(id, {
      key: 'approve-publish-2',
      action: 'accept',
      content: { approve: true },
    });
    assert.equal(wrong.isError, true);
    assert.match(String(structured(wrong).note), /not an outstanding input request/);
    assert.equal(structured(wrong).status, 'input_required');

    await assert.rejects(respond(id, { key: KEY, action: 'accept', content: { note: 'forgot approve' } }), {
      code: -32602,
      message: /content\.approve: required by the input request/,
    });

    const done = await respond(id, { key: KEY, action: 'accept', content: { approve: true } });
    assert.equal(done.isError ?? false, false);
    const json = structured(done);
    assert.equal(json.status, 'completed');
    assert.equal((json.result as ChainResult).publication?.status, 'published');
  });

  test('decline answers completed with isError', async () => {
    const id = await startPoll();
    const done = await respond(id, { key: KEY, action: 'decline' });
    assert.equal(done.isError, true);
    assert.equal(structured(done).status, 'completed');
    assert.match(String(structured(done).message), /declined publishing/);
  });

  test('no answer before the deadline: get_mining_result shows the timed-out approval', async () => {
    const strictV1 = await connectV1(strict.url);
    try {
      // Over the threshold: approval is asked although the call did not ask for it.
      const id = await startPoll({ difficulty: 11, blocks: 1 }, strictV1);
      const done = await eventually(
        async () => {
          const result = await strictV1.callTool({
            name: 'get_mining_result',
            arguments: { workflow_id: id },
          });
          return structured(result).status === 'completed' ? result : undefined;
        },
        30_000,
        'the approval to time out',
      );
      assert.equal(done.isError, true);
      assert.match(String(structured(done).message), /approval timed out/);
    } finally {
      await strictV1.close();
    }
  });
});
