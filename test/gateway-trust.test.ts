// Who may do what, against a real dev server and worker: bearer tokens, tasks bound to their
// principal (another's task reads exactly like an unknown one), idempotent starts, the running-task
// cap, poll rate limiting, and a table of bad inputs, each with its exact HTTP status and JSON-RPC
// code and proof that none of them started a workflow.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { KEY_WORKFLOW_TYPE } from '../gateway/temporal/keyed-start.ts';
import { MCP_PRINCIPAL } from '../gateway/temporal/run-memo.ts';
import { keyedTaskId, newTaskId, runTaskId, taskKey } from '../gateway/temporal/task-ids.ts';
import { calibrate, difficultyFor, type MinerSpeed } from './support/gateway-difficulty.ts';
import {
  DEFAULT_CAP,
  startGateway,
  TEST_SERVER_SECRET,
  type TestGateway,
  taskHandle,
} from './support/gateway-server.ts';
import { structured } from './support/mcp-clients.ts';
import { PLAIN_CLIENT, PROTOCOL_VERSION, rpc, rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const TASK_QUEUE = `gateway-trust-${process.pid}`;
const TOKENS = {
  alice: 'alice-token-5f2c9a1e7b3d4c60',
  bob: 'bob-token-0d8e6b4a2c1f9e73',
  table: 'table-token-7a1b2c3d4e5f6071',
  capped: 'capped-token-1c2d3e4f5a6b7c8d',
};
const AUTH_TOKENS = Object.entries(TOKENS)
  .map(([principal, token]) => `${principal}:${token}`)
  .join(',');
const as = (principal: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[principal]}` });

let temporal: TestTemporal;
let worker: WorkerProcess;
let gateway: TestGateway;
const gateways: TestGateway[] = [];
let speed: MinerSpeed;
/**
 * Runs that are only ever cancelled: a block at the highest difficulty (about 2^40 hashes, hours
 * on any machine), with data of its own so its nonce is not one a fixed input happens to find early.
 */
const endless = () => ({ difficulty: 40, blocks: 1, data: randomUUID() });

async function gatewayWith(env: Record<string, string>, options: { pollIntervalMs?: number } = {}) {
  const started = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    ...options,
    // The product's default running-task cap: task ids name their slot and run, as users get them.
    env: { MCP_AUTH_TOKENS: AUTH_TOKENS, ...DEFAULT_CAP, ...env },
  });
  gateways.push(started);
  return started;
}

before(async () => {
  temporal = await startTestTemporal();
  worker = startWorker({ ...temporal.env, TEMPORAL_TASK_QUEUE: TASK_QUEUE });
  gateway = await gatewayWith({});
  // The calibration runs as a principal of its own, through a gateway without auth.
  const open = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
  });
  gateways.push(open);
  await worker.ready;
  speed = await calibrate(open.url);
});

after(async () => {
  for (const g of gateways) await g.close().catch(() => {});
  await worker?.stop().catch(() => {});
  await temporal?.close();
});

/** Temporal calls the test process's gateways have made (the metric every call is timed in). */
async function temporalCalls(): Promise<number> {
  const text = await (await fetch(new URL('/metrics', gateway.origin))).text();
  const counts = text.match(/^mcp_gateway_temporal_request_duration_seconds_count\{[^}]*\} \d+$/gm) ?? [];
  return counts.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** Every tool run in the namespace (not the cap's slot holders), from Temporal's visibility store. */
async function allRuns(query?: string): Promise<Set<string>> {
  const runs = `WorkflowType != "${KEY_WORKFLOW_TYPE}"${query ? ` AND (${query})` : ''}`;
  const ids = new Set<string>();
  for await (const run of temporal.client.workflow.list({ query: runs })) ids.add(run.workflowId);
  return ids;
}

async function startEndless(principal: keyof typeof TOKENS, target = gateway): Promise<string> {
  const created = await rpcResult(
    target.url,
    'tools/call',
    { name: 'start_mining', arguments: endless() },
    TASKS_CLIENT,
    as(principal),
  );
  assert.equal(created.resultType, 'task');
  return String(created.taskId);
}

async function connectV1As(url: URL, principal: keyof typeof TOKENS): Promise<V1Client> {
  const client = new V1Client({ name: `trust-test-${principal}`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: as(principal) } }));
  return client;
}

/** A raw HTTP request (fetch cannot send a foreign Host header). */
function rawPost(url: URL, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers }, (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}

describe('authentication', () => {
  test('no token, a wrong token, another scheme: 401 with WWW-Authenticate; health probes stay open', async () => {
    const call = { name: 'start_mining', arguments: { difficulty: 8, blocks: 1 } };
    for (const [headers, challenge] of [
      [{}, /^Bearer realm="mcp"$/],
      [{ authorization: 'Bearer not-a-token-of-anyone-here' }, /error="invalid_token"/],
      [{ authorization: `Bearer ${TOKENS.alice}x` }, /error="invalid_token"/],
      [
        { authorization: `Basic ${Buffer.from(`alice:${TOKENS.alice}`).toString('base64')}` },
        /invalid_token/,
      ],
    ] as const) {
      const response = await fetch(gateway.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }),
      });
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.match(response.headers.get('www-authenticate') ?? '', challenge);
      const body = (await response.json()) as { error: { code: number; message: string } };
      assert.equal(body.error.code, -32001);
      assert.match(body.error.message, /^Unauthorized/);
    }
    assert.equal((await fetch(new URL('/healthz', gateway.origin))).status, 200);
    assert.equal((await fetch(new URL('/readyz', gateway.origin))).status, 200);
  });

  test('a token names its principal: the run carries it in memo and search attribute', async () => {
    const client = await connectV1As(gateway.url, 'alice');
    try {
      const tools = (await client.listTools()).tools;
      assert.deepEqual(tools.map((t) => t.name).sort(), [
        'cancel_mining',
        'get_mining_result',
        'respond_to_mining',
        'start_mining',
      ]);
      for (const tool of tools) assert.ok((tool.description ?? '').length > 80, tool.name);
      const json = structured(
        await client.callTool({ name: 'start_mining', arguments: { difficulty: 8, blocks: 1 } }),
      );
      assert.equal(json.status, 'completed');
      const description = await taskHandle(temporal.client, 'alice', String(json.workflow_id)).describe();
      assert.equal(description.memo?.principal, 'alice');
      assert.equal(description.typedSearchAttributes.get(MCP_PRINCIPAL), 'alice');
    } finally {
      await client.close();
    }
  });
});

describe('a loopback bind other than 127.0.0.1', () => {
  test('127.0.0.2 without tokens: no authentication, and foreign Host and Origin headers are refused', async () => {
    const local = await startGateway({
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
      env: { MCP_HOST: '127.0.0.2' },
    });
    gateways.push(local);
    assert.equal(local.url.hostname, '127.0.0.2');
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const ownHost = await rawPost(local.url, headers, body);
    assert.equal(ownHost.status, 200, ownHost.body);
    const foreignHost = await rawPost(local.url, { ...headers, host: 'evil.example' }, body);
    assert.equal(foreignHost.status, 403);
    const foreignOrigin = await rawPost(local.url, { ...headers, origin: 'http://evil.example' }, body);
    assert.equal(foreignOrigin.status, 403);
    const localOrigin = await rawPost(local.url, { ...headers, origin: 'http://127.0.0.2:3000' }, body);
    assert.equal(localOrigin.status, 200);
  });
});

describe("another principal's task", () => {
  test('polling, cancelling and answering it read exactly like an unknown task; the task is unharmed', async () => {
    const taskId = await startEndless('alice');
    // Well formed and bob's own (his owner tag, a slot, a run id Temporal never gave): it gets past the
    // tag and is answered by Temporal, where alice's id is refused by its tag before any call.
    const secret = Buffer.from(TEST_SERVER_SECRET);
    const unknown = runTaskId(secret, newTaskId(secret, 'bob', 'mine'), { slot: 0, runId: randomUUID() });
    const responses = { 'approve-publish-1': { action: 'accept', content: { approve: true } } };

    // Tasks methods: the same error object, code and message alike.
    for (const [method, extra] of [
      ['tasks/get', {}],
      ['tasks/cancel', {}],
      ['tasks/update', { inputResponses: responses }],
    ] as const) {
      const foreign = await rpc(gateway.url, method, { taskId, ...extra }, TASKS_CLIENT, as('bob'));
      const missing = await rpc(gateway.url, method, { taskId: unknown, ...extra }, TASKS_CLIENT, as('bob'));
      assert.equal(foreign.error?.code, -32602, `${method}: ${JSON.stringify(foreign)}`);
      assert.deepEqual(foreign.error, missing.error, method);
      assert.equal(foreign.httpStatus, missing.httpStatus, method);
    }

    // Start/poll tools: the same not_found answer, with the id given.
    const bob = await connectV1As(gateway.url, 'bob');
    try {
      for (const [name, extra] of [
        ['get_mining_result', {}],
        ['cancel_mining', {}],
        ['respond_to_mining', { key: 'approve-publish-1', action: 'accept', content: { approve: true } }],
      ] as const) {
        const foreign = await bob.callTool({ name, arguments: { workflow_id: taskId, ...extra } });
        const missing = await bob.callTool({ name, arguments: { workflow_id: unknown, ...extra } });
        assert.equal(structured(foreign).status, 'not_found', name);
        assert.deepEqual(
          JSON.parse(JSON.stringify(foreign).replaceAll(taskId, '<id>')),
          JSON.parse(JSON.stringify(missing).replaceAll(unknown, '<id>')),
          name,
        );
      }
    } finally {
      await bob.close();
    }

    // The unknown id reaches Temporal, the foreign one does not.
    const callsOf = async (id: string) => {
      const before = await temporalCalls();
      await rpc(gateway.url, 'tasks/get', { taskId: id }, TASKS_CLIENT, as('bob'));
      return (await temporalCalls()) - before;
    };
    assert.ok((await callsOf(unknown)) >= 1, 'the unknown id is looked up in Temporal');
    assert.equal(await callsOf(taskId), 0, 'the foreign id is refused by its owner tag alone');

    // Similar time: the refusal by tag is not told apart from a describe that found nothing.
    const time = async (id: string) => {
      const sent = performance.now();
      await rpc(gateway.url, 'tasks/get', { taskId: id }, TASKS_CLIENT, as('bob'));
      return performance.now() - sent;
    };
    const foreignMs: number[] = [];
    const unknownMs: number[] = [];
    for (let i = 0; i < 25; i++) {
      foreignMs.push(await time(taskId));
      unknownMs.push(await time(unknown));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const gap = Math.abs(median(foreignMs) - median(unknownMs));
    console.log(
      `foreign vs unknown tasks/get: median ${median(foreignMs).toFixed(1)} ms vs ${median(unknownMs).toFixed(1)} ms`,
    );
    assert.ok(gap < 20, `medians differ by ${gap.toFixed(1)} ms`);

    // Unharmed: still running for its owner, no cancellation requested, no signal received.
    const own = await rpcResult(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, as('alice'));
    assert.equal(own.status, 'working');
    const handle = taskHandle(temporal.client, 'alice', taskId);
    assert.equal((await handle.describe()).status.name, 'RUNNING');
    const kinds = new Set(((await handle.fetchHistory()).events ?? []).map((e) => String(e.eventType)));
    for (const refused of [
      'EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED',
      'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED',
    ]) {
      assert.ok(![...kinds].some((k) => k === refused || k.endsWith(refused.replace('EVENT_TYPE_', ''))));
    }
    await rpcResult(gateway.url, 'tasks/cancel', { taskId }, TASKS_CLIENT, as('alice'));
  });
});

describe('idempotent starts', () => {
  test('a retried start returns the same task, then its result; other arguments are refused', async () => {
    const args = { difficulty: difficultyFor(speed, 0.5), blocks: 12, idempotency_key: 'order-1234' };
    const first = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'start_mining', arguments: args },
      TASKS_CLIENT,
      as('alice'),
    );
    assert.equal(first.resultType, 'task');
    const taskId = String(first.taskId);
    assert.equal(
      taskKey(taskId),
      keyedTaskId(
        Buffer.from(TEST_SERVER_SECRET),
        'alice',
        { name: 'start_mining', idPrefix: 'mine' },
        'order-1234',
      ),
    );

    // Retried while running, concurrently, by both client generations: the same task every time.
    const retries = await Promise.all([
      rpcResult(
        gateway.url,
        'tools/call',
        { name: 'start_mining', arguments: args },
        TASKS_CLIENT,
        as('alice'),
      ),
      rpcResult(
        gateway.url,
        'tools/call',
        { name: 'start_mining', arguments: args },
        TASKS_CLIENT,
        as('alice'),
      ),
      rpcResult(
        gateway.url,
        'tools/call',
        { name: 'start_mining', arguments: args },
        PLAIN_CLIENT,
        as('alice'),
      ),
    ]);
    // (A task handle, or the inline result should the run have finished meanwhile.)
    const idOf = (answer: Record<string, unknown>) => answer.taskId ?? structured(answer).workflow_id;
    assert.deepEqual(retries.map(idOf), [taskId, taskId, taskId]);

    // The same key with other arguments: invalid params naming the conflict.
    const conflict = await rpc(
      gateway.url,
      'tools/call',
      { name: 'start_mining', arguments: { ...args, blocks: 2 } },
      TASKS_CLIENT,
      as('alice'),
    );
    assert.equal(conflict.error?.code, -32602);
    assert.match(conflict.error?.message ?? '', /idempotency_key conflict/);
    assert.match(conflict.error?.message ?? '', /\(blocks\)/);

    // Another principal's same key is another task.
    const bobs = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'start_mining', arguments: { ...args, difficulty: 8 } },
      TASKS_CLIENT,
      as('bob'),
    );
    assert.notEqual(idOf(bobs), taskId);

    // Once done, a retry answers the result inline, from the same run.
    await eventually(
      async () => {
        const t = await rpcResult(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, as('alice'));
        return t.status === 'completed' ? t : undefined;
      },
      60_000,
      'the keyed run to complete',
      250,
    );
    const late = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'start_mining', arguments: args },
      TASKS_CLIENT,
      as('alice'),
    );
    assert.equal(late.resultType, 'complete');
    assert.equal(structured(late).status, 'completed');
    assert.equal(structured(late).workflow_id, taskId);
    const runs = [];
    const runsOfKey = `McpTaskId = "${taskKey(taskId)}" AND WorkflowType != "${KEY_WORKFLOW_TYPE}"`;
    for await (const run of temporal.client.workflow.list({ query: runsOfKey })) runs.push(run);
    assert.equal(runs.length, 1, 'one run for the key, however often it was started');
  });
});

describe('running-task cap', () => {
  test('a principal at the cap is refused with a clear error; nothing starts; others are unaffected', async () => {
    const capped = await gatewayWith({ MCP_MAX_RUNNING_TASKS: '2' });
    const ids = [await startEndless('capped', capped), await startEndless('capped', capped)];
    const query = `${MCP_PRINCIPAL.name} = "capped" AND ExecutionStatus = "Running"`;
    await eventually(
      async () => ((await temporal.client.workflow.count(query)).count === 2 ? true : undefined),
      10_000,
      'two running',
    );

    const refused = await rpc(
      capped.url,
      'tools/call',
      { name: 'start_mining', arguments: endless() },
      TASKS_CLIENT,
      as('capped'),
    );
    assert.equal(refused.error?.code, -32000);
    // What the refusal says is running is what Temporal has running, counted apart from it.
    const runningNow = (await temporal.client.workflow.count(query)).count;
    assert.equal(runningNow, 2, 'Temporal has the two runs running');
    assert.match(
      refused.error?.message ?? '',
      new RegExp(`Too many running tasks: "capped" has ${runningNow} running \\(the limit is 2\\)`),
    );
    assert.deepEqual(refused.error?.data, { reason: 'running_task_limit', running: runningNow, limit: 2 });
    assert.equal((await temporal.client.workflow.count(`${MCP_PRINCIPAL.name} = "capped"`)).count, 2);

    const other = await startEndless('bob', capped);
    await rpcResult(capped.url, 'tasks/cancel', { taskId: other }, TASKS_CLIENT, as('bob'));

    // A finished task frees its place.
    await rpcResult(capped.url, 'tasks/cancel', { taskId: ids[0] }, TASKS_CLIENT, as('capped'));
    const third = await eventually(
      async () => {
        const answer = await rpc(
          capped.url,
          'tools/call',
          { name: 'start_mining', arguments: endless() },
          TASKS_CLIENT,
          as('capped'),
        );
        return answer.result ? String(answer.result.taskId) : undefined;
      },
      10_000,
      'a place under the cap',
      200,
    );
    for (const id of [ids[1], third])
      await rpcResult(capped.url, 'tasks/cancel', { taskId: id }, TASKS_CLIENT, as('capped'));
  });
});

describe('poll rate limiting', () => {
  test('polls closer than MCP_POLL_MIN_INTERVAL_MS: 429 with Retry-After and a JSON-RPC error', async () => {
    const limited = await gatewayWith({ MCP_POLL_MIN_INTERVAL_MS: '800' }, { pollIntervalMs: 1_000 });
    const taskId = await startEndless('alice', limited);
    assert.equal(
      (await rpcResult(limited.url, 'tasks/get', { taskId }, TASKS_CLIENT, as('alice'))).status,
      'working',
    );

    const fast = await rpc(limited.url, 'tasks/get', { taskId }, TASKS_CLIENT, as('alice'));
    assert.equal(fast.httpStatus, 429);
    assert.equal(fast.error?.code, -32000);
    assert.match(fast.error?.message ?? '', /Polling too fast: poll task "mine-.*" at most every 800 ms/);
    const v1 = await rpc(
      limited.url,
      'tools/call',
      { name: 'get_mining_result', arguments: { workflow_id: taskId } },
      PLAIN_CLIENT,
      as('alice'),
    );
    assert.equal(v1.httpStatus, 429, 'get_mining_result counts as a poll of the same task');
    assert.equal(
      (await rpc(limited.url, 'tasks/get', { taskId }, TASKS_CLIENT, as('bob'))).error?.code,
      -32602,
      "bob's own pace",
    );

    // A client that keeps the advertised pace is never refused.
    for (let i = 0; i < 3; i++) {
      await delay(1_000);
      const polled = await rpc(limited.url, 'tasks/get', { taskId }, TASKS_CLIENT, as('alice'));
      assert.equal(polled.httpStatus, 200);
      assert.equal(polled.result?.status, 'working');
    }
    await rpcResult(limited.url, 'tasks/cancel', { taskId }, TASKS_CLIENT, as('alice'));
  });
});

interface BadInput {
  name: string;
  send: () => Promise<{ status: number; code?: number; message?: string }>;
  status: number;
  code?: number;
  message?: RegExp;
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL_VERSION,
};

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { ...HEADERS, ...as('table'), ...headers },
    body,
  });
  const text = await response.text();
  const error = text ? (JSON.parse(text) as { error?: { code: number; message: string } }).error : undefined;
  return { status: response.status, code: error?.code, message: error?.message };
}

async function call(method: string, params: Record<string, unknown>, framing = TASKS_CLIENT) {
  const answer = await rpc(gateway.url, method, params, framing, as('table'));
  return { status: answer.httpStatus, code: answer.error?.code, message: answer.error?.message };
}

const start = (args: unknown) => call('tools/call', { name: 'start_mining', arguments: args });

const BAD_INPUTS: BadInput[] = [
  {
    name: 'no Authorization header',
    send: () => post('{}', { authorization: '' }),
    status: 401,
    code: -32001,
  },
  {
    name: 'unknown bearer token',
    send: () => post('{}', { authorization: 'Bearer xxxxxxxxxxxxxxxxxxxxxxxx' }),
    status: 401,
    code: -32001,
  },
  {
    name: 'foreign Host header (DNS rebinding)',
    send: async () => {
      const answer = await rawPost(gateway.url, { ...HEADERS, ...as('table'), host: 'evil.example' }, '{}');
      return { status: answer.status };
    },
    status: 403,
  },
  {
    name: 'foreign Origin header (DNS rebinding)',
    send: () => post('{}', { origin: 'http://evil.example' }),
    status: 403,
    code: -32000,
    message: /Invalid Origin/,
  },
  {
    name: 'body over MCP_MAX_BODY_BYTES',
    send: () =>
      post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'start_mining', arguments: { difficulty: 8, blocks: 1, data: 'x'.repeat(70_000) } },
        }),
      ),
    status: 413,
    code: -32600,
    message: /Request body too large: the limit is 65536 bytes/,
  },
  {
    name: 'malformed JSON',
    send: () => post('{"jsonrpc": "2.0", "id": 1, "method": "tools/ca'),
    status: 400,
    code: -32700,
    message: /^Parse error/,
  },
  { name: 'empty JSON body', send: () => post(''), status: 400, code: -32700 },
  {
    name: 'JSON that is not a JSON-RPC message',
    send: () => post('"start_mining"'),
    status: 400,
    code: -32600,
  },
  {
    name: 'unknown tool',
    send: () => call('tools/call', { name: 'mine_bitcoin', arguments: {} }),
    status: 200,
    code: -32602,
    message: /Unknown tool: mine_bitcoin/,
  },
  {
    name: 'difficulty above 40',
    send: () => start({ difficulty: 41, blocks: 1 }),
    status: 200,
    code: -32602,
    message: /difficulty/,
  },
  {
    name: 'difficulty 0',
    send: () => start({ difficulty: 0, blocks: 1 }),
    status: 200,
    code: -32602,
    message: /difficulty/,
  },
  {
    name: 'difficulty not an integer',
    send: () => start({ difficulty: 8.5, blocks: 1 }),
    status: 200,
    code: -32602,
    message: /difficulty/,
  },
  {
    name: 'difficulty as a string',
    send: () => start({ difficulty: '8', blocks: 1 }),
    status: 200,
    code: -32602,
    message: /difficulty/,
  },
  {
    name: 'blocks null',
    send: () => start({ difficulty: 8, blocks: null }),
    status: 200,
    code: -32602,
    message: /blocks/,
  },
  {
    name: 'blocks above 20',
    send: () => start({ difficulty: 8, blocks: 21 }),
    status: 200,
    code: -32602,
    message: /blocks/,
  },
  {
    name: 'data over 256 characters',
    send: () => start({ difficulty: 8, blocks: 1, data: 'x'.repeat(257) }),
    status: 200,
    code: -32602,
    message: /data/,
  },
  {
    name: 'require_approval not a boolean',
    send: () => start({ difficulty: 8, blocks: 1, require_approval: 'yes' }),
    status: 200,
    code: -32602,
    message: /require_approval/,
  },
  {
    name: 'empty idempotency_key',
    send: () => start({ difficulty: 8, blocks: 1, idempotency_key: '' }),
    status: 200,
    code: -32602,
    message: /idempotency_key/,
  },
  {
    name: 'idempotency_key over 200 characters',
    send: () => start({ difficulty: 8, blocks: 1, idempotency_key: 'k'.repeat(201) }),
    status: 200,
    code: -32602,
    message: /idempotency_key/,
  },
  {
    name: 'unknown argument (misspelt key)',
    send: () => start({ difficulty: 8, blocks: 1, idempotencyKey: 'k' }),
    status: 200,
    code: -32602,
    message: /idempotencyKey/,
  },
  { name: 'arguments not an object', send: () => start('difficulty=8'), status: 200, code: -32602 },
  {
    name: 'get_mining_result without workflow_id',
    send: () => call('tools/call', { name: 'get_mining_result', arguments: {} }),
    status: 200,
    code: -32602,
    message: /workflow_id/,
  },
  {
    name: 'workflow_id over 200 characters',
    send: () =>
      call('tools/call', { name: 'get_mining_result', arguments: { workflow_id: 'm'.repeat(201) } }),
    status: 200,
    code: -32602,
    message: /workflow_id/,
  },
  {
    name: 'tasks/get without the Tasks extension',
    send: () => call('tasks/get', { taskId: 'mine-x' }, PLAIN_CLIENT),
    status: 400,
    code: -32021,
  },
  { name: 'tasks/get without taskId', send: () => call('tasks/get', {}), status: 200, code: -32602 },
  {
    name: 'tasks/get of an unknown task',
    send: () => call('tasks/get', { taskId: 'mine-AAAAAAAAAAAAAAAAAAAAAA' }),
    status: 200,
    code: -32602,
    message: /Task not found/,
  },
  {
    name: 'tasks/update with a malformed response',
    send: () => call('tasks/update', { taskId: 'mine-x', inputResponses: { k: { action: 'perhaps' } } }),
    status: 200,
    code: -32602,
  },
  {
    name: 'tasks/cancel without the Tasks extension',
    send: () => call('tasks/cancel', { taskId: 'mine-x' }, PLAIN_CLIENT),
    status: 400,
    code: -32021,
  },
  {
    name: 'tasks/update without the Tasks extension',
    send: () => call('tasks/update', { taskId: 'mine-x' }, PLAIN_CLIENT),
    status: 400,
    code: -32021,
  },
];

describe('bad inputs', () => {
  test('each answers its exact HTTP status and JSON-RPC error, and starts no workflow', async () => {
    const before = await allRuns();
    const rows: string[] = [];
    const failures: string[] = [];
    for (const bad of BAD_INPUTS) {
      const got = await bad.send();
      rows.push(`| ${bad.name} | ${got.status} | ${got.code ?? ''} | ${(got.message ?? '').slice(0, 90)} |`);
      if (
        got.status !== bad.status ||
        got.code !== bad.code ||
        (bad.message && !bad.message.test(got.message ?? ''))
      ) {
        failures.push(`${bad.name}: expected ${bad.status}/${bad.code}, got ${JSON.stringify(got)}`);
      }
    }
    console.log(['| bad input | HTTP | JSON-RPC | message |', '|---|---|---|---|', ...rows].join('\n'));
    assert.deepEqual(failures, []);

    // Proof nothing started: a good start as the same principal shows up in the list, and is the
    // only new run (visibility is updated in order, so a run a bad input started would show too).
    const good = await start({ difficulty: 8, blocks: 1 });
    assert.equal(good.code, undefined);
    const added = await eventually(
      async () => {
        const now = await allRuns();
        const fresh = [...now].filter((id) => !before.has(id));
        return fresh.length > 0 ? fresh : undefined;
      },
      10_000,
      'the control run to be listed',
    );
    assert.equal(added.length, 1, `runs started during the table: ${added.join(', ')}`);
    assert.equal((await temporal.client.workflow.count(`${MCP_PRINCIPAL.name} = "table"`)).count, 1);
  });
});
