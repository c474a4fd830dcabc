// What a wait costs Temporal, counted by Temporal: a real dev server with its metrics endpoint, the
// mining worker and gateways under the running-task cap. A run waiting for a person is waited on by
// a 2026-07-28 tools/call, by a subscriptions/listen push watch and by a 2025-11-25 tasks/result
// stream; each idle wait costs the Temporal frontend at most one request per 10 s (the history long
// poll renews about every 20 s; nothing looks on a timer). And the input a run asks for reaches the
// waiting call, push stream and tasks/result stream at once (well within a second of the run's memo
// upsert).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { DevServer } from '../launcher/dev-server.ts';
import { freePort } from '../launcher/free-port.ts';
import { calibrate, difficultyFor } from './support/gateway-difficulty.ts';
import { startGateway, type TestGateway, taskHandle } from './support/gateway-server.ts';
import { type Framing, framedHeaders, framedRequest, rpcResult } from './support/mcp-http.ts';
import { listen } from './support/sse-listen.ts';
import { eventually } from './support/temporal.ts';
import { inputPublishedAt, requestsDuring } from './support/temporal-requests.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

/** How long each idle wait is counted: past one renewal of the server's 20 s long poll. */
const IDLE_MS = 22_000;
/** The bound: one request per 10 s per waiting call or watched task. */
const MAX_PER_10_S = 1;
/** Input a run asks for reaches a waiting client within this of the run's memo upsert. */
const INPUT_LATENCY_MS = 1_000;
const PRINCIPAL = 'anonymous';
const APPROVAL = { difficulty: 4, blocks: 1, require_approval: true };
const PLAIN: Framing = { clientInfo: { name: 'requests-test', version: '1.0.0' }, clientCapabilities: {} };
const ELICITING: Framing = { ...PLAIN, clientCapabilities: { elicitation: {} } };

let dataDir: string;
let server: DevServer;
let metricsUrl: string;
let temporal: Client;
let worker: WorkerProcess;
/** Answers task-augmented calls at once (a short budget). */
let gateway: TestGateway;
/** Waits long on each call: a call waits on its run for the whole idle window. */
let waiting: TestGateway;
/** Blocks of about 0.3 s, so a run asks for input after its waiter began waiting. */
let difficulty: number;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'temporal-requests-'));
  const metricsPort = await freePort();
  server = await DevServer.start({ dbFilename: join(dataDir, 'temporal.db'), metricsPort });
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  temporal = new Client({ connection: await Connection.connect({ address: server.address }) });
  const taskQueue = `temporal-requests-${process.pid}`;
  worker = startWorker({
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MCP_DATA_DIR: dataDir,
  });
  await worker.ready;
  // The running-task cap on, as a gateway runs by default.
  const options = { temporalAddress: server.address, taskQueue, env: { MCP_MAX_RUNNING_TASKS: '100' } };
  gateway = await startGateway({ ...options, waitBudgetMs: 300 });
  waiting = await startGateway({ ...options, waitBudgetMs: 60_000 });
  difficulty = difficultyFor(await calibrate(gateway.url), 0.3);
});

after(async () => {
  await waiting?.close().catch(() => {});
  await gateway?.close().catch(() => {});
  await worker?.stop().catch(() => {});
  await temporal?.connection.close().catch(() => {});
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Fails above the bound; prints the figure. */
function assertIdle(path: string, counted: { requests: number; seconds: number }) {
  const per10s = counted.requests / (counted.seconds / 10);
  process.stdout.write(
    `temporal requests: ${path}: ${counted.requests} in ${counted.seconds.toFixed(1)} s = ${per10s.toFixed(2)} per 10 s\n`,
  );
  assert.ok(
    counted.requests <= Math.floor((counted.seconds / 10) * MAX_PER_10_S),
    `${path}: ${counted.requests} Temporal requests in ${counted.seconds.toFixed(1)} s of an idle wait`,
  );
}

/** How long after its run published its input requests `arrivedAt` was; prints the figure. */
async function assertPrompt(path: string, run: WorkflowHandle, sentAt: number, arrivedAt: number) {
  const asked = await inputPublishedAt(run);
  assert.ok(asked !== undefined, `${path}: the run published no input requests`);
  assert.ok(sentAt < asked, `${path}: the run asked before its waiter began waiting`);
  const latency = arrivedAt - asked;
  process.stdout.write(
    `temporal requests: ${path}: input reached the client ${latency} ms after the run asked\n`,
  );
  assert.ok(
    latency < INPUT_LATENCY_MS,
    `${path}: input reached the client ${latency} ms after the run asked`,
  );
}

/** A 2026-07-28 tools/call on the waiting gateway, left with `leave` (the client goes away). */
function waitingCall(framing: Framing, args: Record<string, unknown>) {
  const leave = new AbortController();
  const params = { name: 'start_mining', arguments: args };
  const answer = fetch(waiting.url, {
    method: 'POST',
    signal: leave.signal,
    headers: framedHeaders('tools/call', params),
    body: JSON.stringify(framedRequest('tools/call', params, framing)),
  }).then(async (response) => {
    const text = await response.text();
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .at(-1);
    return JSON.parse(data ? data.slice(5) : text) as { result?: Record<string, unknown> };
  });
  answer.catch(() => {});
  return { answer, leave: () => leave.abort() };
}

async function startTask(args: Record<string, unknown>): Promise<string> {
  const created = await rpcResult(gateway.url, 'tools/call', { name: 'start_mining', arguments: args });
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  return String(created.taskId);
}

/** The run of the call whose arguments carry `data` (found in visibility, which catches up soon). */
function runWith(data: string): Promise<WorkflowHandle> {
  return eventually(
    async () => {
      for await (const run of temporal.workflow.list({ query: "ExecutionStatus = 'Running'" })) {
        const memo = run.memo as { arguments?: { data?: unknown } } | undefined;
        if (memo?.arguments?.data === data) return temporal.workflow.getHandle(run.workflowId, run.runId);
      }
      return undefined;
    },
    30_000,
    `the run of "${data}"`,
  );
}

/** The task's current status through tasks/get. */
async function statusOf(taskId: string): Promise<string> {
  return String((await rpcResult(gateway.url, 'tasks/get', { taskId })).status);
}

function untilAsking(taskId: string): Promise<true> {
  return eventually(
    async () => ((await statusOf(taskId)) === 'input_required' ? true : undefined),
    30_000,
    'the run to ask for approval',
  );
}

describe('an idle wait costs Temporal at most one request per 10 s', () => {
  test('a 2026-07-28 tools/call waiting on a run that waits for a person', async () => {
    // A client that cannot answer the approval waits its whole budget on the run.
    const call = waitingCall(PLAIN, { ...APPROVAL, data: 'idle-call' });
    const run = await runWith('idle-call');
    await eventually(() => inputPublishedAt(run), 30_000, 'the run to ask for approval');
    const counted = await requestsDuring(metricsUrl, () => delay(IDLE_MS));
    call.leave();
    assertIdle('tools/call wait', counted);
    await run.cancel();
  });

  test('a push watch on a task waiting for a person', async () => {
    const taskId = await startTask({ ...APPROVAL, data: 'idle-push' });
    await untilAsking(taskId);
    const stream = await listen(gateway.url, { taskIds: [taskId] });
    assert.equal((await stream.next())?.method, 'notifications/subscriptions/acknowledged');
    const first = (await stream.next())?.params as { status?: string } | undefined;
    assert.equal(first?.status, 'input_required');
    const counted = await requestsDuring(metricsUrl, () => delay(IDLE_MS));
    stream.close();
    assertIdle('push watch', counted);
    await rpcResult(gateway.url, 'tasks/cancel', { taskId });
  });

  test('a 2025-11-25 tasks/result stream on a task waiting for a person', async () => {
    const client = await connectV1();
    let answer: (value: { action: 'accept'; content: { approve: boolean } }) => void = () => {};
    let asked: () => void = () => {};
    const askedOnStream = new Promise<void>((resolve) => {
      asked = resolve;
    });
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked();
      return new Promise((resolve) => {
        answer = resolve;
      });
    });
    try {
      const stream = callWithTask(client, { ...APPROVAL, data: 'idle-stream' });
      await askedOnStream;
      const counted = await requestsDuring(metricsUrl, () => delay(IDLE_MS));
      answer({ action: 'accept', content: { approve: true } });
      const messages = await stream;
      assertIdle('tasks/result stream', counted);
      assert.equal(messages.at(-1)?.type, 'result', JSON.stringify(messages.at(-1)));
    } finally {
      await client.close();
    }
  });
});

describe('input a run asks for reaches its waiter at once', () => {
  test('a waiting 2026-07-28 tools/call is answered input_required', async () => {
    const sentAt = Date.now();
    const call = waitingCall(ELICITING, {
      difficulty,
      blocks: 3,
      require_approval: true,
      data: 'prompt-call',
    });
    const answer = await call.answer;
    const arrivedAt = Date.now();
    assert.equal(answer.result?.resultType, 'input_required', JSON.stringify(answer));
    const run = await runWith('prompt-call');
    await assertPrompt('tools/call wait', run, sentAt, arrivedAt);
    await run.cancel();
  });

  test('a push stream is sent input_required', async () => {
    const taskId = await startTask({ difficulty, blocks: 3, require_approval: true, data: 'prompt-push' });
    const sentAt = Date.now();
    const stream = await listen(gateway.url, { taskIds: [taskId] });
    let arrivedAt = 0;
    while (!arrivedAt) {
      const task = (await stream.next())?.params as { status?: string } | undefined;
      if (task?.status === 'input_required') arrivedAt = Date.now();
    }
    stream.close();
    await assertPrompt('push watch', taskHandle(temporal, PRINCIPAL, taskId), sentAt, arrivedAt);
    await rpcResult(gateway.url, 'tasks/cancel', { taskId });
  });

  test('a tasks/result stream is sent the elicitation', async () => {
    const client = await connectV1();
    let arrivedAt = 0;
    client.setRequestHandler(ElicitRequestSchema, () => {
      arrivedAt ||= Date.now();
      return { action: 'accept', content: { approve: true } };
    });
    try {
      // The task at once, then its tasks/result stream opened while the run still mines (the SDK's
      // own loop would poll tasks/get until the run asks, and open the stream only then).
      const calling = client.experimental.tasks.callToolStream(
        { name: 'start_mining', arguments: { difficulty, blocks: 3, require_approval: true } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      const taskId = String(((await calling.next()).value as Message).task?.taskId);
      await calling.return();
      const sentAt = Date.now();
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.match(JSON.stringify(result), /published to the ledger/);
      assert.ok(arrivedAt > 0, 'the elicitation came on the stream');
      // The task's run is its slot's latest (nothing started since it ended).
      await assertPrompt('tasks/result stream', taskHandle(temporal, PRINCIPAL, taskId), sentAt, arrivedAt);
    } finally {
      await client.close();
    }
  });
});

async function connectV1(): Promise<V1Client> {
  const client = new V1Client(
    { name: 'requests-test-v1', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  await client.connect(new V1Transport(gateway.url));
  return client;
}

type Message = { type: string; task?: { taskId: string }; result?: unknown };

/** Every message of one task-augmented call (SDK v1), to its end. */
async function callWithTask(client: V1Client, args: Record<string, unknown>): Promise<Message[]> {
  const messages: Message[] = [];
  const stream = client.experimental.tasks.callToolStream(
    { name: 'start_mining', arguments: args },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  );
  for await (const message of stream) messages.push(message as Message);
  return messages;
}
