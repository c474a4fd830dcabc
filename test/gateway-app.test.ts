// The gateway's HTTP and MCP layers over an in-memory backend: routes, answer shapes, Tasks
// methods and their errors. The Temporal side is covered by gateway-e2e.test.ts.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../gateway/app.ts';
import { gatewayConfig } from '../gateway/config.ts';
import { FakeBackend } from './support/gateway-fake-backend.ts';
import { CHAIN } from './support/gateway-fixtures.ts';
import { connectV1, structured } from './support/mcp-clients.ts';
import { PLAIN_CLIENT, rpc, rpcResult } from './support/mcp-http.ts';

let backend: FakeBackend;
let app: FastifyInstance;
let origin: string;
let url: URL;

before(async () => {
  backend = new FakeBackend();
  const config = gatewayConfig({ MCP_PORT: '0', MCP_READY_TIMEOUT_MS: '300', MCP_POLL_INTERVAL_MS: '1500' });
  app = buildApp(config, { backend });
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
  url = new URL('/mcp', origin);
});

after(async () => {
  await app?.close();
});

beforeEach(() => {
  backend.nextState = { status: 'running' };
  backend.closesInBudget = false;
  backend.ping = async () => {};
});

const START = { name: 'start_mining', arguments: { difficulty: 12, blocks: 2 } };

describe('start_mining answer shapes', () => {
  test('closed within the budget: the result inline, for a client with or without tasks', async () => {
    backend.nextState = { status: 'completed', result: CHAIN };
    backend.closesInBudget = true;
    for (const framing of [undefined, PLAIN_CLIENT]) {
      const result = await rpcResult(url, 'tools/call', START, framing);
      assert.equal(result.resultType, 'complete');
      assert.equal(structured(result).status, 'completed');
      assert.deepEqual(structured(result).result, CHAIN);
    }
  });

  test('still running, extension declared: a CreateTaskResult', async () => {
    const result = await rpcResult(url, 'tools/call', START);
    assert.ok(CreateTaskResultV2Schema.safeParse(result).success, JSON.stringify(result));
    assert.equal(result.status, 'working');
    assert.equal(result.pollIntervalMs, 1500);
    assert.ok(backend.runs.has(String(result.taskId)));
  });

  test('still running, extension not declared: the start/poll running JSON', async () => {
    const result = await rpcResult(url, 'tools/call', START, PLAIN_CLIENT);
    const json = structured(result);
    assert.equal(json.status, 'running');
    assert.equal(json.poll_after_seconds, 2);
  });

  test('the run and the caller are recorded with the start', async () => {
    const result = await rpcResult(url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 12, blocks: 2, data: 'hi', require_approval: true },
    });
    const run = backend.runs.get(String(result.taskId));
    assert.deepEqual(run?.request.input, { difficulty: 12, blocks: 2, data: 'hi', requireApproval: true });
    assert.equal(run?.request.tool, 'start_mining');
    assert.equal(run?.caller.principal, 'anonymous');
  });

  test('bad arguments: -32602 naming the field, nothing started', async () => {
    const before = backend.runs.size;
    for (const [args, field] of [
      [{ difficulty: 0, blocks: 1 }, /difficulty/],
      [{ difficulty: 5, blocks: 21 }, /blocks/],
      [{ difficulty: 5 }, /blocks/],
      [{ difficulty: 5, blocks: 1, data: 'x'.repeat(257) }, /data/],
    ] as const) {
      const answer = await rpc(url, 'tools/call', { name: 'start_mining', arguments: args });
      assert.equal(answer.error?.code, -32602);
      assert.match(answer.error?.message ?? '', field);
    }
    assert.equal(backend.runs.size, before);
  });

  test('an unknown tool: -32602', async () => {
    const answer = await rpc(url, 'tools/call', { name: 'mine_bitcoin', arguments: {} });
    assert.equal(answer.error?.code, -32602);
  });
});

describe('Tasks methods', () => {
  test('tasks/get, tasks/update and tasks/cancel on a known task', async () => {
    const created = await rpcResult(url, 'tools/call', START);
    const taskId = String(created.taskId);
    const task = await rpcResult(url, 'tasks/get', { taskId });
    assert.ok(GetTaskResultV2Schema.safeParse(task).success);
    assert.equal(task.status, 'working');

    const responses = { 'approve-publish-1': { action: 'accept', content: { approve: true } } };
    const ack = await rpcResult(url, 'tasks/update', { taskId, inputResponses: responses });
    assert.ok(UpdateTaskResultV2Schema.safeParse(ack).success);
    assert.deepEqual(backend.runs.get(taskId)?.inputs, [responses]);

    assert.ok(UpdateTaskResultV2Schema.safeParse(await rpcResult(url, 'tasks/cancel', { taskId })).success);
    assert.equal((await rpcResult(url, 'tasks/get', { taskId })).status, 'cancelled');
  });

  test('malformed inputResponses: -32602', async () => {
    const created = await rpcResult(url, 'tools/call', START);
    const answer = await rpc(url, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { k: { action: 'perhaps' } },
    });
    assert.equal(answer.error?.code, -32602);
  });

  test('a missing taskId: -32602', async () => {
    const answer = await rpc(url, 'tasks/get', {});
    assert.equal(answer.error?.code, -32602);
  });

  test('without the extension: -32021 on every method, before anything else is checked', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await rpc(url, method, { taskId: 'mine-fake-1' }, PLAIN_CLIENT);
      assert.equal(answer.error?.code, -32021, method);
    }
  });
});

describe('v1 client', () => {
  test('lists the tools and polls with get_mining_result', async () => {
    const client = await connectV1(url);
    try {
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), [
        'cancel_mining',
        'get_mining_result',
        'start_mining',
      ]);
      for (const tool of tools.tools) assert.ok((tool.description ?? '').length > 80, tool.name);
      const started = structured(await client.callTool(START));
      assert.equal(started.status, 'running');
      const polled = structured(
        await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: started.workflow_id } }),
      );
      assert.equal(polled.status, 'running');
      const missing = structured(
        await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: 'nope' } }),
      );
      assert.equal(missing.status, 'not_found');
    } finally {
      await client.close();
    }
  });
});

describe('HTTP routes', () => {
  test('/readyz answers 503 within its bound when the engine does not answer', async () => {
    backend.ping = () => new Promise(() => {});
    const sent = Date.now();
    const response = await fetch(new URL('/readyz', origin));
    assert.equal(response.status, 503);
    assert.ok(Date.now() - sent < 1_500);
    backend.ping = async () => {
      throw new Error('connection refused');
    };
    assert.equal((await fetch(new URL('/readyz', origin))).status, 503);
  });

  test('/healthz answers 200', async () => {
    assert.equal((await fetch(new URL('/healthz', origin))).status, 200);
  });

  test('a foreign Host or Origin header is refused (DNS rebinding)', async () => {
    for (const headers of [{ host: 'evil.example' }, { origin: 'http://evil.example' }]) {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const request = httpRequest(
          url,
          { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
          (response) => {
            response.resume();
            resolve(response.statusCode);
          },
        );
        request.on('error', reject);
        request.end('{}');
      });
      assert.equal(status, 403, JSON.stringify(headers));
    }
  });
});
