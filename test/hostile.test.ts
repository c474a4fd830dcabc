// Hostile callers against the real stack (dev server, worker process, gateways in-process and as a
// process): concurrent listens past the caps, the same tasks watched from many streams, a nesting
// bomb under the body limit, a flood of readiness probes, and SIGTERM with streams open and calls
// waiting. Each attack with its expected answer, and nothing lost or duplicated.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Readiness } from '../gateway/http/readiness.ts';
import { ANONYMOUS } from '../gateway/mcp/handler.ts';
import { openTaskStreams } from '../gateway/shared/metrics.ts';
import { MCP_PRINCIPAL } from '../gateway/temporal/run-memo.ts';
import { freePort } from '../launcher/free-port.ts';
import { startGatewayProcess } from './support/gateway-process.ts';
import { TEST_SERVER_SECRET, type TestGateway, taskHandle } from './support/gateway-server.ts';
import {
  framedHeaders,
  framedRequest,
  PLAIN_CLIENT,
  rpc,
  rpcResult,
  TASKS_CLIENT,
} from './support/mcp-http.ts';
import { type ListenStream, listen } from './support/sse-listen.ts';
import { startTestStack, type TestStack } from './support/stack.ts';
import { startTcpProxy } from './support/tcp-proxy.ts';
import { eventually } from './support/temporal.ts';

const ECHO_WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/slow-echo.ts', import.meta.url));
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';
const as = (token: string) => ({ authorization: `Bearer ${token}` });

let stack: TestStack;
/** Five streams per gateway at most, any principal. */
let narrow: TestGateway;
/** Three streams per principal at most; alice and bob. */
let perPrincipal: TestGateway;

before(async () => {
  stack = await startTestStack('hostile', { waitBudgetMs: 300, pollIntervalMs: 400 });
  narrow = await stack.extraGateway({ env: { MCP_LISTEN_MAX_STREAMS: '5' } });
  perPrincipal = await stack.extraGateway({
    env: { MCP_AUTH_TOKENS: `alice:${ALICE},bob:${BOB}`, MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL: '3' },
  });
});

after(async () => {
  await stack?.close();
});

/** A run that mines at once, then waits for a person's approval (no CPU while it waits). */
async function waitingTask(gateway: TestGateway, headers: Record<string, string> = {}): Promise<string> {
  const created = await rpcResult(
    gateway.url,
    'tools/call',
    { name: 'start_mining', arguments: { difficulty: 1, blocks: 1, require_approval: true } },
    TASKS_CLIENT,
    headers,
  );
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  return String(created.taskId);
}

/** Opens `count` listens at once; resolves with those acknowledged and the refusals' answers. */
async function listenAll(count: number, url: URL, taskIds: string[], headers: Record<string, string> = {}) {
  const streams = await Promise.all(
    Array.from({ length: count }, () => listen(url, { taskIds }, TASKS_CLIENT, headers)),
  );
  const acked: ListenStream[] = [];
  const refused: Record<string, unknown>[] = [];
  for (const stream of streams) {
    const first = await stream.next(10_000);
    if (first?.method === 'notifications/subscriptions/acknowledged') acked.push(stream);
    else {
      assert.equal(stream.status, 429, JSON.stringify(first));
      refused.push(first ?? {});
      stream.close();
    }
  }
  return { acked, refused };
}

describe('push under load', () => {
  test('40 concurrent listens on 3 tasks past MCP_LISTEN_MAX_STREAMS=5: exactly 5 acknowledged, 35 refused', async () => {
    const tasks = await Promise.all([1, 2, 3].map(() => waitingTask(narrow)));
    const { acked, refused } = await listenAll(40, narrow.url, tasks);
    try {
      assert.equal(acked.length, 5);
      assert.equal(refused.length, 35);
      for (const answer of refused) {
        const error = answer.error as { code: number; data: { reason: string } };
        assert.equal(error.code, -32000);
        assert.equal(error.data.reason, 'subscription_limit');
      }
      // One Temporal watch per task, however many streams hold it (before: one per stream and task).
      const open = await openTaskStreams();
      assert.equal(open.subscriptions, 5);
      assert.equal(open.watches, 3);
    } finally {
      for (const stream of acked) stream.close();
    }
    await eventually(
      async () => ((await openTaskStreams()).watches === 0 ? true : undefined),
      5_000,
      'every watch to end once its streams are gone',
    );
  });

  test('a watched task that disappears (deleted) ends its watch and the stream, instead of being looked for for ever', async () => {
    const taskId = await waitingTask(stack.gateway);
    const stream = await listen(stack.gateway.url, { taskIds: [taskId] });
    try {
      assert.equal((await stream.next(10_000))?.method, 'notifications/subscriptions/acknowledged');
      assert.equal((await stream.next(10_000))?.method, 'notifications/tasks');
      await stack.temporal.client.workflowService.deleteWorkflowExecution({
        namespace: stack.temporal.namespace,
        workflowExecution: { workflowId: taskId },
      });
      let last: Record<string, unknown> | undefined;
      for (let message = await stream.next(10_000); message; message = await stream.next(10_000))
        last = message;
      assert.equal((last?.result as { resultType?: string } | undefined)?.resultType, 'complete');
      assert.equal((await openTaskStreams()).watches, 0);
    } finally {
      stream.close();
    }
  });

  test('per principal: 10 concurrent listens from alice → 3 acknowledged; bob still gets his', async () => {
    const aliceTask = await waitingTask(perPrincipal, as(ALICE));
    const bobTask = await waitingTask(perPrincipal, as(BOB));
    const alice = await listenAll(10, perPrincipal.url, [aliceTask], as(ALICE));
    const bob = await listenAll(3, perPrincipal.url, [bobTask], as(BOB));
    try {
      assert.equal(alice.acked.length, 3);
      assert.equal(alice.refused.length, 7);
      for (const answer of alice.refused) {
        const error = answer.error as { data?: { reason?: string } } | undefined;
        assert.equal(error?.data?.reason, 'principal_subscription_limit');
      }
      assert.equal(bob.acked.length, 3);
    } finally {
      for (const stream of [...alice.acked, ...bob.acked]) stream.close();
    }
  });
});

describe('the running-task cap', () => {
  test('a 500-start burst from one principal through two gateways: exactly the cap runs, every other start refused', async () => {
    const BURST = 'burst-token-0123456789abcdef';
    // Only the running-task cap: 250 calls at once on a replica would also pass its bound on one
    // principal's waits (100), which refuses first (test/principal-limits.test.ts).
    const env = {
      MCP_AUTH_TOKENS: `burst:${BURST}`,
      MCP_MAX_RUNNING_TASKS: '10',
      MCP_MAX_WAITS_PER_PRINCIPAL: '0',
    };
    // A load test on a small machine: what is asserted is the count, not the latency.
    const replicas = await Promise.all(
      [1, 2].map(() => stack.extraGateway({ waitBudgetMs: 100, temporalTimeoutMs: 10_000, env })),
    );
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        rpc(
          (replicas[i % 2] as TestGateway).url,
          'tools/call',
          {
            name: 'start_mining',
            arguments: { difficulty: 1, blocks: 1, require_approval: true, data: `burst ${i}` },
          },
          TASKS_CLIENT,
          as(BURST),
        ),
      ),
    );
    const ms = Date.now() - started;
    const admitted = answers.filter((answer) => answer.result).map((answer) => String(answer.result?.taskId));
    const refused = answers.filter((answer) => answer.error);
    const kinds = new Map<string, number>();
    for (const answer of refused) {
      const reason = String((answer.error?.data as { reason?: string } | undefined)?.reason);
      kinds.set(reason, (kinds.get(reason) ?? 0) + 1);
    }
    console.log(`burst: ${admitted.length} admitted; refused ${JSON.stringify([...kinds])} in ${ms} ms`);
    for (const answer of refused) {
      assert.equal(answer.error?.code, -32000, JSON.stringify(answer.error));
      assert.equal((answer.error?.data as { reason?: string } | undefined)?.reason, 'running_task_limit');
    }
    assert.equal(admitted.length, 10, `${admitted.length} admitted`);
    assert.equal(new Set(admitted).size, 10);
    assert.equal(refused.length, 490);
    // What Temporal holds: ten runs of that principal, no more.
    const query = `${MCP_PRINCIPAL.name} = "burst"`;
    await eventually(
      async () => ((await stack.temporal.client.workflow.count(query)).count >= 10 ? true : undefined),
      10_000,
      'the admitted runs to be listed',
    );
    assert.equal((await stack.temporal.client.workflow.count(query)).count, 10);
    console.log(`500 concurrent starts through two gateways, cap 10: 10 admitted, 490 refused in ${ms} ms`);
    // A run that ends frees its slot for the next start.
    await rpcResult(
      (replicas[0] as TestGateway).url,
      'tasks/cancel',
      { taskId: admitted[0] },
      TASKS_CLIENT,
      as(BURST),
    );
    const next = await eventually(
      async () => {
        const answer = await rpc(
          (replicas[1] as TestGateway).url,
          'tools/call',
          {
            name: 'start_mining',
            arguments: { difficulty: 1, blocks: 1, require_approval: true, data: 'after' },
          },
          TASKS_CLIENT,
          as(BURST),
        );
        return answer.result ? String(answer.result.taskId) : undefined;
      },
      10_000,
      'a slot to free up',
      300,
    );
    for (const taskId of [...admitted.slice(1), next])
      await rpcResult((replicas[0] as TestGateway).url, 'tasks/cancel', { taskId }, TASKS_CLIENT, as(BURST));
  });
});

describe('secret arguments', () => {
  test('an argument the schema marks writeOnly never reaches the memo or the Web UI details; keyed retries still compare it', async () => {
    const queue = `hostile-echo-${process.pid}`;
    const dir = mkdtempSync(join(tmpdir(), 'hostile-catalog-'));
    const catalog = join(dir, 'tools.json');
    writeFileSync(
      catalog,
      JSON.stringify({
        tools: [
          {
            name: 'echo_secret',
            description: 'Echoes text; takes an API key it must not show.',
            workflow: 'slowEcho',
            taskQueue: queue,
            waitBudgetMs: 5_000,
            idempotencyKeyArgument: 'request_id',
            inputSchema: {
              type: 'object',
              properties: {
                text: { type: 'string' },
                ms: { type: 'integer', default: 0 },
                api_key: { type: 'string', writeOnly: true },
                request_id: { type: 'string' },
              },
              required: ['text', 'api_key'],
              additionalProperties: false,
            },
          },
        ],
      }),
    );
    const connection = await NativeConnection.connect({ address: stack.temporal.address });
    const worker = await Worker.create({
      connection,
      namespace: stack.temporal.namespace,
      taskQueue: queue,
      workflowsPath: ECHO_WORKFLOWS,
    });
    const running = worker.run();
    try {
      const gateway = await stack.extraGateway({
        env: { MCP_TOOLS_FILE: catalog, MCP_ALLOW_PLAINTEXT_SECRETS: 'true' },
      });
      const secret = 'sk-live-7f3a9c1e5b2d8f4a6c0e';
      const call = (apiKey: string) =>
        rpc(
          gateway.url,
          'tools/call',
          { name: 'echo_secret', arguments: { text: 'hi', api_key: apiKey, request_id: 'r-1' } },
          PLAIN_CLIENT,
        );
      const first = await call(secret);
      const handle = first.result?.structuredContent as { workflow_id: string; status: string };
      assert.equal(handle.status, 'completed', JSON.stringify(first));
      const description = await stack.temporal.client.workflow.getHandle(handle.workflow_id).describe();
      const memo = JSON.stringify(description.memo);
      const details = (await description.staticDetails()) ?? '';
      for (const kept of [memo, details, JSON.stringify(first)]) assert.ok(!kept.includes(secret), kept);
      assert.match(memo, /\[secret hmac-sha256:[0-9a-f]{32}\]/);
      // The same key with the same secret is the same run; with another secret, a conflict naming the field.
      const again = await call(secret);
      assert.equal(
        (again.result?.structuredContent as { workflow_id?: string } | undefined)?.workflow_id,
        handle.workflow_id,
      );
      const other = await call('sk-live-0000000000000000');
      assert.equal(other.error?.code, -32602);
      assert.match(other.error?.message ?? '', /api_key/);
      assert.ok(!(other.error?.message ?? '').includes('sk-live'));
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bad input', () => {
  test('a 30,000-level nested array under the body limit: 400 with a JSON-RPC error, and the gateway serves on', async () => {
    const depth = 30_000;
    const params = { name: 'start_mining', arguments: { difficulty: 1, blocks: 1, data: 'x' } };
    const text = JSON.stringify(framedRequest('tools/call', params, PLAIN_CLIENT)).replace(
      '"data":"x"',
      `"data":${'['.repeat(depth)}${']'.repeat(depth)}`,
    );
    assert.ok(text.length < stack.gateway.config.bodyLimitBytes, `${text.length} bytes`);
    const response = await fetch(stack.gateway.url, {
      method: 'POST',
      headers: framedHeaders('tools/call', params),
      body: text,
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { code: number; message: string } };
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /deeper than 64 levels/);
    const listed = await rpcResult(stack.gateway.url, 'tools/list', {}, PLAIN_CLIENT);
    assert.ok(Array.isArray(listed.tools));
  });

  test('a prototype-poisoning body is still refused, and ordinary nesting passes', async () => {
    const params = { name: 'start_mining', arguments: { difficulty: 1, blocks: 1 } };
    const poisoned = JSON.stringify(framedRequest('tools/call', params, PLAIN_CLIENT)).replace(
      '"difficulty":1',
      '"__proto__":{"polluted":true},"difficulty":1',
    );
    const refused = await fetch(stack.gateway.url, {
      method: 'POST',
      headers: framedHeaders('tools/call', params),
      body: poisoned,
    });
    assert.equal(refused.status, 400);
    // Strings holding brackets do not count as nesting.
    const answer = await rpc(
      stack.gateway.url,
      'tools/call',
      { name: 'start_mining', arguments: { difficulty: 1, blocks: 1, data: '['.repeat(200) } },
      PLAIN_CLIENT,
    );
    assert.ok(answer.result, JSON.stringify(answer.error));
  });
});

describe('slow and many connections', () => {
  /** Opens a raw connection to the gateway; resolves with what it answered and when it closed. */
  function trickle(origin: string, head: string): Promise<{ answer: string; ms: number; error?: string }> {
    const { hostname, port } = new URL(origin);
    return new Promise((resolve) => {
      const started = Date.now();
      let answer = '';
      const socket = connect(Number(port), hostname, () => socket.write(head));
      socket.on('data', (chunk) => {
        answer += chunk.toString();
      });
      let error: string | undefined;
      socket.on('error', (err: NodeJS.ErrnoException) => {
        error = err.code;
      });
      socket.on('close', () => resolve({ answer, ms: Date.now() - started, ...(error ? { error } : {}) }));
    });
  }

  test('a body trickled and never finished is answered 408 and its socket closed within the request timeout', async () => {
    const gateway = await stack.extraGateway({ env: { MCP_REQUEST_TIMEOUT_MS: '1000' } });
    const { answer, ms } = await trickle(
      gateway.origin,
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"json',
    );
    assert.match(answer, /^HTTP\/1\.1 408/);
    assert.ok(ms < 3_000, `closed after ${ms} ms`);
  });

  test('connections past MCP_MAX_CONNECTIONS are refused; those held are served', async () => {
    const gateway = await stack.extraGateway({ env: { MCP_MAX_CONNECTIONS: '3' } });
    const { hostname, port } = new URL(gateway.origin);
    const held = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(Number(port), hostname, () => resolve(socket));
            socket.on('error', reject);
          }),
      ),
    );
    try {
      const fourth = await trickle(gateway.origin, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      assert.equal(fourth.answer, '', 'the fourth connection is closed unanswered');
      const first = held[0] as Socket;
      const served = new Promise<string>((resolve) =>
        first.once('data', (chunk) => resolve(chunk.toString())),
      );
      first.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      assert.match(await served, /^HTTP\/1\.1 200/);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

describe('tasks/update from a hostile client', () => {
  /** Signals the run's history holds. */
  async function signalsOf(taskId: string): Promise<number> {
    const history = await stack.temporal.client.workflow.getHandle(taskId).fetchHistory();
    return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
  }

  test('keys never asked, repeats and oversized answers never reach the run’s history', async () => {
    const taskId = await waitingTask(stack.gateway);
    const asked = await eventually(
      async () => {
        const task = await rpcResult(stack.gateway.url, 'tasks/get', { taskId });
        return task.status === 'input_required' ? (task.inputRequests as Record<string, unknown>) : undefined;
      },
      15_000,
      'the run to ask',
    );
    const [key] = Object.keys(asked);
    assert.ok(key);
    const update = (inputResponses: Record<string, unknown>) =>
      rpc(stack.gateway.url, 'tasks/update', { taskId, inputResponses });
    const big = await update({ [key]: { action: 'accept', content: { note: 'z'.repeat(20_000) } } });
    assert.equal(big.error?.code, -32602);
    assert.match(big.error?.message ?? '', /at most 16384 per response/);
    for (let i = 0; i < 100; i++) {
      const answer = await update({ [`never-asked-${i}`]: { action: 'accept', content: {} } });
      assert.ok(answer.result, JSON.stringify(answer.error));
    }
    assert.equal(await signalsOf(taskId), 0, '100 answers to keys never asked: no signal');
    await update({ [key]: { action: 'decline' } });
    await eventually(
      async () =>
        (await rpcResult(stack.gateway.url, 'tasks/get', { taskId })).status !== 'input_required'
          ? true
          : undefined,
      15_000,
      'the answer to be taken',
    );
    for (let i = 0; i < 20; i++) await update({ [key]: { action: 'decline' } });
    assert.equal(await signalsOf(taskId), 1, 'the answer once; its 20 repeats dropped');
  });
});

describe('starts Temporal refuses', () => {
  test('a namespace without the search attributes: -32603 start_refused (not "Task not found"), the reason only in the log', async () => {
    const namespace = `bare-${process.pid}`;
    // protobufjs takes a number where its types say Long.
    const retention = { seconds: 86_400 } as never;
    await stack.temporal.client.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: retention,
    });
    const bare = await stack.extraGateway({ env: { TEMPORAL_NAMESPACE: namespace } });
    const params = { name: 'start_mining', arguments: { difficulty: 1, blocks: 1 } };
    // A new namespace reaches every Temporal service within seconds: until then it is "not found".
    const answer = await eventually(
      async () => {
        const tried = await rpc(bare.url, 'tools/call', params, PLAIN_CLIENT);
        return (tried.error?.data as { reason?: string } | undefined)?.reason === 'temporal_unavailable' ||
          /not found/i.test(tried.error?.message ?? '')
          ? undefined
          : tried;
      },
      30_000,
      'the namespace to be known',
      500,
    );
    assert.equal(answer.error?.code, -32603, JSON.stringify(answer));
    assert.deepEqual(answer.error?.data, { reason: 'start_refused' });
    assert.doesNotMatch(answer.error?.message ?? '', /McpTool|search attribute/i);
    // Nothing started: the refused start was the slot's too.
    const count = async (query: string) =>
      Number(
        (await stack.temporal.client.workflowService.countWorkflowExecutions({ namespace, query })).count,
      );
    assert.equal(await count(''), 0, 'nothing started');
  });
});

describe('a Temporal that stalls mid-start', () => {
  // Without the cap and under it (where the start is the slot's too: nothing before it can stall).
  for (const cap of ['0', '1000'])
    test(`the start reaches Temporal, its answer never comes back: the error names the run, which exists; a retry is not needed (cap ${cap})`, async () => {
      const proxy = await startTcpProxy(stack.temporal.address);
      const gateway = await stack.extraGateway({
        temporalTimeoutMs: 1_500,
        env: { TEMPORAL_ADDRESS: proxy.address, MCP_MAX_RUNNING_TASKS: cap },
      });
      try {
        // A first call through the proxy, so the connection is up before it stalls.
        await rpcResult(gateway.url, 'tools/list', {}, PLAIN_CLIENT);
        await waitingTask(gateway);
        const query = `TaskQueue = "${stack.taskQueue}"`;
        const before = (await stack.temporal.client.workflow.count(query)).count;
        proxy.stall();
        const answer = await rpc(
          gateway.url,
          'tools/call',
          {
            name: 'start_mining',
            arguments: { difficulty: 1, blocks: 1, require_approval: true, data: 'stalled' },
          },
          PLAIN_CLIENT,
        );
        assert.equal(answer.error?.code, -32603, JSON.stringify(answer));
        const data = answer.error?.data as { reason: string; workflowId: string };
        assert.equal(data.reason, 'start_unconfirmed');
        assert.ok(answer.error?.message.includes(data.workflowId));
        proxy.resume();
        // The run the error names was started, once: polling it finds it, and no other run appeared.
        const description = await taskHandle(stack.temporal.client, ANONYMOUS, data.workflowId).describe();
        assert.equal(description.status.name, 'RUNNING');
        await eventually(
          async () =>
            (await stack.temporal.client.workflow.count(query)).count === before + 1 ? true : undefined,
          10_000,
          'visibility to show the one new run',
        );
        const polled = await eventually(
          async () => {
            const tried = await rpc(
              gateway.url,
              'tools/call',
              {
                name: 'get_mining_result',
                arguments: { workflow_id: data.workflowId },
              },
              PLAIN_CLIENT,
            );
            return tried.result;
          },
          15_000,
          'the gateway to answer again',
          250,
        );
        assert.equal((polled.structuredContent as { workflow_id: string }).workflow_id, data.workflowId);
      } finally {
        proxy.resume();
        await proxy.close();
      }
    });
});

describe('a Temporal that stalls before or after the start', () => {
  const stalledCall = (gateway: TestGateway) =>
    rpc(
      gateway.url,
      'tools/call',
      {
        name: 'start_mining',
        arguments: { difficulty: 1, blocks: 1, require_approval: true, data: 'stalled' },
      },
      PLAIN_CLIENT,
    );

  test('stalled after the start (the wait and the describe): the ordinary handle of the run, which exists once', async () => {
    const proxy = await startTcpProxy(stack.temporal.address);
    const gateway = await stack.extraGateway({
      temporalTimeoutMs: 1_500,
      env: { TEMPORAL_ADDRESS: proxy.address, MCP_MAX_RUNNING_TASKS: '0', MCP_WAIT_BUDGET_MS: '4000' },
    });
    try {
      await rpcResult(gateway.url, 'tools/list', {}, PLAIN_CLIENT);
      const query = `TaskQueue = "${stack.taskQueue}" AND ExecutionStatus = "Running"`;
      const before = (await stack.temporal.client.workflow.count(query)).count;
      const call = stalledCall(gateway);
      // The start has landed (the run is in visibility): every answer from here on stalls.
      await eventually(
        async () => ((await stack.temporal.client.workflow.count(query)).count > before ? true : undefined),
        10_000,
        'the run to be started',
        50,
      );
      proxy.stall();
      const answer = await call;
      proxy.resume();
      assert.ok(answer.result, JSON.stringify(answer));
      const content = answer.result.structuredContent as { status: string; workflow_id: string };
      assert.equal(content.status, 'running');
      const description = await stack.temporal.client.workflow.getHandle(content.workflow_id).describe();
      assert.equal(description.status.name, 'RUNNING');
      assert.equal((await stack.temporal.client.workflow.count(query)).count, before + 1, 'one run, not two');
    } finally {
      proxy.resume();
      await proxy.close();
    }
  });
});

describe('readiness probes', () => {
  test('200 concurrent /readyz: all ready, saying nothing more', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => fetch(new URL('/readyz', stack.gateway.origin))),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { status: 'ready', temporal: 'reachable' });
    }
  });
});

describe('shutdown under load', () => {
  test('SIGTERM with 50 streams open and 20 calls waiting: every stream ends with its result, every call gets its handle, the process exits in time', async () => {
    const gateway = await startGatewayProcess(await freePort(), {
      ...stack.temporal.env,
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      MCP_SERVER_SECRET: TEST_SERVER_SECRET,
      MCP_DATA_DIR: stack.dataDir,
      // Long enough that every call is still waiting when the signal comes.
      MCP_WAIT_BUDGET_MS: '120000',
      MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL: '100',
    });
    try {
      const tasks = await Promise.all([1, 2, 3].map(() => waitingTask(stack.gateway)));
      const { acked: streams } = await listenAll(50, gateway.url, tasks);
      assert.equal(streams.length, 50);
      // Counted before the calls go out: a run they start must not be counted as already there.
      const query = `TaskQueue = "${stack.taskQueue}" AND ExecutionStatus = "Running"`;
      const before = (await stack.temporal.client.workflow.count(query)).count;
      const sentAt = Date.now();
      const calls = Array.from({ length: 20 }, (_, i) =>
        rpc(
          gateway.url,
          'tools/call',
          {
            name: 'start_mining',
            arguments: { difficulty: 1, blocks: 1, require_approval: true, data: `call ${i}` },
          },
          i % 2 === 0 ? TASKS_CLIENT : PLAIN_CLIENT,
        ),
      );
      // Every call has started its run and waits: 20 more runs open on this queue.
      await eventually(
        async () =>
          (await stack.temporal.client.workflow.count(query)).count >= before + 20 ? true : undefined,
        // Generous: on a loaded machine twenty starts (each taking a slot of the cap) take a while.
        90_000,
        '20 more runs to start',
        200,
      );
      const exited = new Promise<number | null>((resolve) =>
        gateway.child.once('exit', (code) => resolve(code)),
      );
      const signalledAt = Date.now();
      await gateway.stop('SIGTERM');
      const code = await exited;
      const exitMs = Date.now() - signalledAt;
      assert.equal(code, 0, gateway.output());
      assert.ok(exitMs < 10_000, `exited ${exitMs} ms after SIGTERM`);
      const answers = await Promise.all(calls);
      const ids = new Set<string>();
      for (const [i, answer] of answers.entries()) {
        assert.ok(answer.result, `call ${i}: ${answer.httpStatus} ${JSON.stringify(answer.error)}`);
        if (i % 2 === 0) {
          assert.equal(answer.result.resultType, 'task');
          ids.add(String(answer.result.taskId));
        } else {
          const handle = answer.result.structuredContent as { status: string; workflow_id: string };
          assert.ok(['running', 'input_required'].includes(handle.status), handle.status);
          ids.add(handle.workflow_id);
        }
      }
      assert.equal(ids.size, 20, 'twenty calls, twenty distinct runs');
      for (const stream of streams) {
        let last: Record<string, unknown> | undefined;
        for (let message = await stream.next(5_000); message; message = await stream.next(5_000))
          last = message;
        assert.equal((last?.result as { resultType?: string } | undefined)?.resultType, 'complete');
      }
      // Nothing lost: every run the calls started is still there, running, on Temporal.
      for (const id of ids) {
        const description = await taskHandle(stack.temporal.client, ANONYMOUS, id).describe();
        assert.equal(description.status.name, 'RUNNING');
      }
      console.log(
        `SIGTERM with 50 streams and 20 waiting calls (sent ${signalledAt - sentAt} ms earlier): exited in ${exitMs} ms`,
      );
    } finally {
      await gateway.stop('SIGKILL').catch(() => {});
    }
  });
});

describe('Readiness', () => {
  test('concurrent probes share one Temporal call, and one answer stands for a second', async () => {
    let pings = 0;
    let now = 0;
    const readiness = new Readiness({
      ping: async () => {
        pings++;
      },
      timeoutMs: 1_000,
      now: () => now,
    });
    const answers = await Promise.all(Array.from({ length: 200 }, () => readiness.check()));
    assert.ok(answers.every(Boolean));
    assert.equal(pings, 1);
    now = 999;
    await readiness.check();
    assert.equal(pings, 1);
    now = 1_000;
    await readiness.check();
    assert.equal(pings, 2);
  });

  test('not ready: the reason goes to the log once each time readiness is lost, never to the caller', async () => {
    let up = false;
    let now = 0;
    const reasons: string[] = [];
    const readiness = new Readiness({
      ping: async () => {
        if (!up) throw new Error('connect ECONNREFUSED 127.0.0.1:7233');
      },
      timeoutMs: 1_000,
      now: () => now,
      onUnready: (reason) => reasons.push(reason),
    });
    assert.equal(await readiness.check(), false);
    now += 1_000;
    assert.equal(await readiness.check(), false);
    assert.deepEqual(reasons, ['connect ECONNREFUSED 127.0.0.1:7233']);
    up = true;
    now += 1_000;
    assert.equal(await readiness.check(), true);
    up = false;
    now += 1_000;
    assert.equal(await readiness.check(), false);
    assert.equal(reasons.length, 2);
  });

  test('a ping that never answers is not ready within the bound', async () => {
    const readiness = new Readiness({ ping: () => new Promise(() => {}), timeoutMs: 50 });
    const started = Date.now();
    assert.equal(await readiness.check(), false);
    assert.ok(Date.now() - started < 1_000);
  });
});
