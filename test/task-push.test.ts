// Pushed task status against the real stack: subscriptions/listen with taskIds answered on an SSE
// stream (ack with the honoured filter, notifications/tasks valid against the ext-tasks v2 schema,
// the closing result), a foreign and an unknown id left out alike, a stream held by another gateway,
// a client that goes away (every long poll ends), the limits, and the ext-tasks session client
// settling through notifications instead of tasks/get polls.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { TaskStatusNotificationV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { openTaskStreams } from '../gateway/shared/metrics.ts';
import { newTaskId } from '../gateway/temporal/task-ids.ts';
import { calibrate, difficultyFor } from './support/gateway-difficulty.ts';
import { TEST_SERVER_SECRET, type TestGateway } from './support/gateway-server.ts';
import { connectV2, structured } from './support/mcp-clients.ts';
import {
  framedHeaders,
  framedRequest,
  PLAIN_CLIENT,
  PROTOCOL_VERSION,
  rawDispatch,
  rpcResult,
  TASKS_CLIENT,
} from './support/mcp-http.ts';
import { sampleKey, scrape } from './support/metrics-scrape.ts';
import { listen } from './support/sse-listen.ts';
import { startTestStack, type TestStack } from './support/stack.ts';
import { eventually } from './support/temporal.ts';

setFlagsFromString('--expose-gc');
/** A full garbage collection, on demand. */
const collectGarbage = runInNewContext('gc') as () => void;

const ALICE = 'alice-token-0123456789abcdef';
let stack: TestStack;
/** The same Temporal and secret, with a token for alice: her tasks are foreign to the others. */
let aliceGateway: TestGateway;
/** Another replica: holds streams for tasks started through the first. */
let other: TestGateway;
/** Blocks of about 0.3 s. */
let difficulty: number;

before(async () => {
  stack = await startTestStack('task-push', { waitBudgetMs: 300, pollIntervalMs: 400 });
  aliceGateway = await stack.extraGateway({ env: { MCP_AUTH_TOKENS: `alice:${ALICE}` } });
  other = await stack.extraGateway({ pollIntervalMs: 400, env: { MCP_LISTEN_MAX_TASKS: '3' } });
  difficulty = difficultyFor(await calibrate(stack.gateway.url), 0.3);
});

after(async () => {
  await stack?.close();
});

async function startTask(args: Record<string, unknown>, gateway = stack.gateway): Promise<string> {
  const created = await rpcResult(gateway.url, 'tools/call', { name: 'start_mining', arguments: args });
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  return String(created.taskId);
}

function notifiedTask(message: Record<string, unknown> | undefined) {
  assert.equal(message?.method, 'notifications/tasks', JSON.stringify(message));
  const parsed = TaskStatusNotificationV2Schema.safeParse(message);
  assert.ok(parsed.success, `not a valid notifications/tasks: ${JSON.stringify(parsed.error?.issues)}`);
  return message?.params as Record<string, unknown>;
}

describe('subscriptions/listen with taskIds', () => {
  test('the raw stream: ack with only the caller’s own tasks, status changes, the outcome, then the closing result', async () => {
    // Twelve blocks of about 0.3 s: several status lines at the 400 ms interval, on any machine.
    const mine = await startTask({ difficulty, blocks: 12, data: 'raw-stream' });
    const aliceTask = (
      await rpcResult(
        aliceGateway.url,
        'tools/call',
        { name: 'start_mining', arguments: { difficulty: 40, blocks: 1 } },
        TASKS_CLIENT,
        { authorization: `Bearer ${ALICE}` },
      )
    ).taskId as string;
    const neverStarted = newTaskId(Buffer.from(TEST_SERVER_SECRET), 'anonymous', 'mine');
    const stream = await listen(stack.gateway.url, { taskIds: [mine, aliceTask, neverStarted, 'garbage'] });
    assert.equal(stream.status, 200);
    assert.match(stream.contentType, /text\/event-stream/);

    const ack = await stream.next();
    assert.equal(ack?.method, 'notifications/subscriptions/acknowledged');
    const ackParams = ack?.params as { notifications: { taskIds: string[] }; _meta: Record<string, unknown> };
    assert.deepEqual(ackParams.notifications.taskIds, [mine], 'foreign and unknown ids are left out alike');
    const subscriptionId = ackParams._meta['io.modelcontextprotocol/subscriptionId'];
    assert.ok(subscriptionId !== undefined);

    const first = notifiedTask(await stream.next());
    assert.equal(first.taskId, mine);
    assert.equal(first.status, 'working');
    const seen: Record<string, unknown>[] = [first];
    for (;;) {
      const message = await stream.next();
      if (message?.method !== 'notifications/tasks') {
        // The closing result once every subscribed task has ended.
        assert.equal((message?.result as { resultType?: string } | undefined)?.resultType, 'complete');
        assert.equal(message?.id, subscriptionId);
        break;
      }
      seen.push(notifiedTask(message));
    }
    assert.ok(
      seen.length >= 3,
      `status lines pushed while mining: ${seen.map((t) => t.statusMessage).join(' | ')}`,
    );
    const last = seen.at(-1);
    assert.equal(last?.status, 'completed');
    const result = last?.result as { structuredContent: Record<string, unknown>; resultType: string };
    assert.equal(result.resultType, 'complete');
    assert.equal(result.structuredContent.status, 'completed');
    assert.ok(
      stream.frames.every((frame) => frame.startsWith('event: message\ndata: ') || frame.startsWith(':')),
    );
    await rpcResult(aliceGateway.url, 'tasks/cancel', { taskId: aliceTask }, TASKS_CLIENT, {
      authorization: `Bearer ${ALICE}`,
    });
  });

  test('a task started through one gateway is pushed on a stream another holds, the moment it ends', async () => {
    const taskId = await startTask({ difficulty, blocks: 3 });
    const stream = await listen(other.url, { taskIds: [taskId] });
    const ack = await stream.next();
    assert.deepEqual(
      (ack?.params as { notifications: { taskIds: string[] } } | undefined)?.notifications.taskIds,
      [taskId],
    );
    let done: Record<string, unknown> | undefined;
    while (!done) {
      const task = notifiedTask(await stream.next());
      if (task.status === 'completed') done = task;
    }
    // The push came from the run closing (a long poll), not from the next poll interval.
    const closedAt = (await stack.temporal.client.workflow.getHandle(taskId).describe()).closeTime;
    assert.ok(closedAt);
    const lateBy = Date.now() - closedAt.getTime();
    assert.ok(lateBy < 2_000, `pushed ${lateBy} ms after the close`);
  });

  test('input_required is pushed with its requests; the answer moves it on', async () => {
    const taskId = await startTask({ difficulty: 4, blocks: 1, require_approval: true });
    const stream = await listen(stack.gateway.url, { taskIds: [taskId] });
    await stream.next(); // ack
    let asking: Record<string, unknown> | undefined;
    while (!asking) {
      const task = notifiedTask(await stream.next());
      if (task.status === 'input_required') asking = task;
    }
    const keys = Object.keys(asking.inputRequests as object);
    assert.deepEqual(keys, ['approve-publish-1']);
    await rpcResult(stack.gateway.url, 'tasks/update', {
      taskId,
      inputResponses: { 'approve-publish-1': { action: 'accept', content: { approve: false } } },
    });
    let final: Record<string, unknown> | undefined;
    while (!final) {
      const task = notifiedTask(await stream.next());
      if (task.status === 'completed') final = task;
    }
    assert.equal((final.result as { isError?: boolean }).isError, true, 'declined: a tool-level error');
  });

  test('a client that goes away: the stream and every Temporal long poll it caused end', async () => {
    const before = await openTaskStreams();
    const ids = [
      await startTask({ difficulty: 40, blocks: 1 }),
      await startTask({ difficulty: 40, blocks: 1 }),
    ];
    const stream = await listen(stack.gateway.url, { taskIds: ids });
    await stream.next(); // ack
    await stream.next(); // the first task's state
    await stream.next(); // the second's
    const open = await eventually(
      async () => {
        const now = await openTaskStreams();
        return now.watches >= before.watches + 2 ? now : undefined;
      },
      5_000,
      'the two long polls to open',
    );
    assert.equal(open.subscriptions, before.subscriptions + 1);
    stream.close();
    await eventually(
      async () => {
        const now = await openTaskStreams();
        return now.watches === before.watches && now.subscriptions === before.subscriptions ? now : undefined;
      },
      5_000,
      'every watch to end after the client left',
      20,
    );
    for (const taskId of ids) await rpcResult(stack.gateway.url, 'tasks/cancel', { taskId });
  });

  test('a quiet stream whose client goes away ends at once, not at the next frame', async () => {
    // A poll interval of a minute: nothing is pushed after the task's first state.
    const quiet = await stack.extraGateway({ pollIntervalMs: 60_000 });
    const taskId = await startTask({ difficulty: 40, blocks: 1 }, quiet);
    const before = await openTaskStreams();
    const stream = await listen(quiet.url, { taskIds: [taskId] });
    await stream.next(); // ack
    await stream.next(); // the task's state
    // The web Request the stream was answered for is garbage by now: the stream must not count on
    // it to learn that the client left.
    for (let i = 0; i < 3; i++) {
      collectGarbage();
      await delay(10);
    }
    stream.close();
    await eventually(
      async () => {
        const now = await openTaskStreams();
        return now.subscriptions < before.subscriptions + 1 ? now : undefined;
      },
      3_000,
      'the stream to end after the client left',
      20,
    );
    await rpcResult(quiet.url, 'tasks/cancel', { taskId });
  });

  test('limits and capability: too many ids, and a request without the Tasks extension', async () => {
    const tooMany = await listen(other.url, { taskIds: ['a', 'b', 'c', 'd'] });
    const refusal = await tooMany.next();
    assert.equal((refusal?.error as { code: number } | undefined)?.code, -32602);
    assert.match(
      String((refusal?.error as { message: string } | undefined)?.message),
      /at most 3 taskIds per subscription/,
    );
    const plain = await listen(stack.gateway.url, { taskIds: ['x'] }, PLAIN_CLIENT);
    const missing = await plain.next();
    assert.equal((missing?.error as { code: number } | undefined)?.code, -32021);
  });

  test('a task subscription is admitted and counted like every request: a token, the request metrics', async () => {
    const unauthenticated = await listen(aliceGateway.url, { taskIds: ['x'] });
    assert.equal(unauthenticated.status, 401);
    unauthenticated.close();
    const before = await scrape(other.url.origin);
    const key = (outcome: string) =>
      sampleKey('mcp_gateway_task_requests_total', { method: 'subscriptions/listen', outcome });
    const refused = await listen(other.url, { taskIds: ['a', 'b', 'c', 'd'] });
    await refused.next();
    const taskId = await startTask({ difficulty: 40, blocks: 1 }, other);
    const open = await listen(other.url, { taskIds: [taskId] });
    assert.equal((await open.next())?.method, 'notifications/subscriptions/acknowledged');
    open.close();
    await rpcResult(other.url, 'tasks/cancel', { taskId });
    const after = await scrape(other.url.origin);
    assert.equal((after.get(key('invalid_params')) ?? 0) - (before.get(key('invalid_params')) ?? 0), 1);
    assert.equal((after.get(key('ok')) ?? 0) - (before.get(key('ok')) ?? 0), 1);
  });

  test('the SDK’s rules judge a task subscription first: headers that disagree with the body are refused', async () => {
    const params = { notifications: { taskIds: ['x'] } };
    const response = await fetch(stack.gateway.url, {
      method: 'POST',
      headers: { ...framedHeaders('subscriptions/listen', params), 'mcp-method': 'tools/call' },
      body: JSON.stringify(framedRequest('subscriptions/listen', params, TASKS_CLIENT, 7)),
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32020);
    assert.match(body.error.message, /Mcp-Method header names tools\/call/);
  });

  test('the SDK’s own subscriptions (no taskIds) still answer', async () => {
    const stream = await listen(stack.gateway.url, { toolsListChanged: true });
    const ack = await stream.next();
    assert.equal(ack?.method, 'notifications/subscriptions/acknowledged');
    stream.close();
  });
});

describe('the ext-tasks session client with push', () => {
  test('settles through notifications/tasks, with the polls of tasks/get it no longer needs', async () => {
    // A long poll interval, advised as it is (no faster pacing, no jitter): a client that only
    // polled would learn of each change seconds late.
    const slowPolls = await stack.extraGateway({
      waitBudgetMs: 300,
      pollIntervalMs: 3_000,
      env: { MCP_POLL_FAST_INTERVAL_MS: '3000', MCP_POLL_JITTER_PERCENT: '0' },
    });
    const client = await connectV2(slowPolls.url, { tasks: true });
    let gets = 0;
    const dispatch = rawDispatch(slowPolls.url);
    const session = createTaskSessionFromClient(client, {
      endpointId: 'task-push',
      rawDispatch: async (request) => {
        if ((request as { method?: string }).method === 'tasks/get') gets++;
        return dispatch(request);
      },
      v2RequestFraming: {
        protocolVersion: PROTOCOL_VERSION,
        clientInfo: TASKS_CLIENT.clientInfo,
        clientCapabilities: TASKS_CLIENT.clientCapabilities as never,
      },
      onInputRequest: async () => ({ action: 'accept', content: { approve: true } }) as never,
    });
    try {
      const startedAt = Date.now();
      const execution = await session.callTool('start_mining', {
        difficulty,
        blocks: 3,
        require_approval: true,
      });
      const taskId = execution.handle?.taskId;
      assert.ok(taskId, 'the call became a task');
      // The host routes the listen stream's notifications to the client, as a transport would.
      const stream = await listen(slowPolls.url, { taskIds: [taskId] });
      await stream.next(); // ack
      const pump = (async () => {
        for (;;) {
          const message = await stream.next(120_000).catch(() => undefined);
          if (message?.method !== 'notifications/tasks') return;
          await client.fallbackNotificationHandler?.(message as never);
        }
      })();
      const { outcome } = await execution.settle();
      const result = structured(resultFromTaskOutcome(outcome));
      assert.equal(result.status, 'completed');
      assert.equal((result.result as { publication?: { status: string } }).publication?.status, 'published');
      const took = Date.now() - startedAt;
      assert.ok(gets <= 2, `tasks/get calls: ${gets}`);
      console.log(`push: settled in ${took} ms with ${gets} tasks/get call(s) at a 3 s poll interval`);
      stream.close();
      await pump;
    } finally {
      await session.close();
      await client.close();
    }
  });
});
