// Meeting clients where they are, against the real stack: progress notifications during the
// bounded wait (SDK clients of both eras), tasks/* served without Mcp-Name, the task
// handle's text for clients that drop task fields, the Tasks extension advertised per era, and
// outputSchema-conforming answers.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { calibrate, difficultyFor } from './support/gateway-difficulty.ts';
import { connectV1, connectV2, structured } from './support/mcp-clients.ts';
import { framedRequest, PROTOCOL_VERSION, rpc, TASKS_CLIENT } from './support/mcp-http.ts';
import { startTestStack, type TestStack } from './support/stack.ts';

let stack: TestStack;
/**
 * Twenty blocks of about a quarter second: they outlast the 2.5 s budget, and blocks end (so
 * progress grows) between the once-a-second progress reads, however the hashes fall.
 */
let slow: { difficulty: number; blocks: number };
/** A block of about two minutes: still running when the budget ends, however the hashes fall. */
let endless: { difficulty: number; blocks: number };

before(async () => {
  stack = await startTestStack('client-reach', { waitBudgetMs: 2_500, pollIntervalMs: 500 });
  const speed = await calibrate(stack.gateway.url);
  slow = { difficulty: difficultyFor(speed, 0.25), blocks: 20 };
  endless = { difficulty: difficultyFor(speed, 120), blocks: 1 };
});

after(async () => {
  await stack?.close();
});

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

describe('progress during the bounded wait', () => {
  test('a 2026-07-28 client with a progress token: the first notification at once, then growing progress', async () => {
    const client = await connectV2(stack.gateway.url, { tasks: false });
    try {
      const firsts: number[] = [];
      for (let round = 0; round < 5; round++) {
        const seen: { progress: number; total?: number; message?: string; at: number }[] = [];
        const startedAt = performance.now();
        const result = await client.callTool(
          { name: 'start_mining', arguments: slow },
          { onprogress: (p) => seen.push({ ...p, at: performance.now() - startedAt }) },
        );
        const json = structured(result);
        assert.ok(['running', 'completed'].includes(String(json.status)));
        assert.ok(seen.length >= 2, `progress notifications: ${JSON.stringify(seen)}`);
        const first = seen[0];
        assert.ok(first);
        firsts.push(first.at);
        assert.equal(first.progress, 0);
        for (let k = 1; k < seen.length; k++) {
          assert.ok((seen[k]?.progress ?? 0) > (seen[k - 1]?.progress ?? 0), 'progress grows');
        }
        const last = seen.at(-1);
        // Progress counts hashes tried against the hashes the chain is expected to take.
        assert.ok((last?.total ?? 0) >= slow.blocks * 2 ** slow.difficulty, `total: ${last?.total}`);
        assert.ok((last?.progress ?? 0) <= (last?.total ?? 0));
        assert.match(String(last?.message), /blocks done, about [\d,]+ hashes tried/);
        if (json.status === 'running') {
          await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: json.workflow_id } });
        }
      }
      console.log(
        `first progress notification after the call started: p50 ${percentile(firsts, 50).toFixed(1)} ms, ` +
          `max ${Math.max(...firsts).toFixed(1)} ms (n=${firsts.length})`,
      );
      assert.ok(percentile(firsts, 50) < 1_000, 'the first notification comes within the first second');
    } finally {
      await client.close();
    }
  });

  test('a 2025-11-25 client with a progress token gets the notifications too', async () => {
    const client = await connectV1(stack.gateway.url);
    try {
      const seen: number[] = [];
      const result = await client.callTool({ name: 'start_mining', arguments: slow }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      assert.ok(seen.length >= 2, `progress: ${seen.join(', ')}`);
      const json = structured(result);
      if (json.status === 'running') {
        await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: json.workflow_id } });
      }
    } finally {
      await client.close();
    }
  });

  test('without a progress token the answer is one JSON body, no stream', async () => {
    const answer = await fetch(stack.gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': 'start_mining',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'start_mining',
          arguments: { difficulty: 1, blocks: 1 },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
            'io.modelcontextprotocol/clientInfo': TASKS_CLIENT.clientInfo,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    assert.match(answer.headers.get('content-type') ?? '', /application\/json/);
    await answer.text();
  });
});

describe('standard headers a client left out (gateway-headers.test.ts has the rules)', () => {
  const framedBody = (method: string, params: Record<string, unknown>) =>
    JSON.stringify(framedRequest(method, params));
  const post = (headers: Record<string, string>, body: string) =>
    fetch(stack.gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        ...headers,
      },
      body,
    });

  test('tasks/get without Mcp-Name (as the Python SDK sends it) is served from params.taskId', async () => {
    const created = await rpc(stack.gateway.url, 'tools/call', { name: 'start_mining', arguments: endless });
    const taskId = String(created.result?.taskId);
    assert.match(taskId, /^mine-/);
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const response = await post({ 'mcp-method': method }, framedBody(method, { taskId }));
      assert.equal(response.status, 200, `${method}: ${await response.clone().text()}`);
      const body = (await response.json()) as { result?: Record<string, unknown> };
      assert.equal(body.result?.resultType, 'complete');
    }
  });

  test('tools/call without Mcp-Name or Mcp-Method is refused (SEP-2243 requires both), as is one that disagrees', async () => {
    const call = framedBody('tools/call', { name: 'start_mining', arguments: { difficulty: 1, blocks: 1 } });
    const cases: Record<string, string>[] = [
      {},
      { 'mcp-method': 'tools/call' },
      { 'mcp-method': 'tools/call', 'mcp-name': 'get_mining_result' },
    ];
    for (const headers of cases) {
      const answer = await post(headers, call);
      assert.equal(answer.status, 400, JSON.stringify(headers));
      const error = ((await answer.json()) as { error?: { code: number } }).error;
      assert.equal(error?.code, -32020, JSON.stringify(headers));
    }
  });
});

describe('what each client can read', () => {
  test('a task handle carries a text block naming the task id and how to follow it', async () => {
    const created = await rpc(stack.gateway.url, 'tools/call', { name: 'start_mining', arguments: endless });
    const result = created.result ?? {};
    assert.equal(result.resultType, 'task');
    const [block] = result.content as { type: string; text: string }[];
    assert.equal(block?.type, 'text');
    assert.match(block?.text ?? '', new RegExp(`Started task ${String(result.taskId)}`));
    assert.match(block?.text ?? '', /get_mining_result/);
    await rpc(stack.gateway.url, 'tasks/cancel', { taskId: result.taskId });
  });

  test('initialize advertises the Tasks extension to 2026-07-28 clients only', async () => {
    const legacy = await connectV1(stack.gateway.url);
    const modern = await connectV2(stack.gateway.url, { tasks: true });
    try {
      const legacyExtensions = (legacy.getServerCapabilities() as { extensions?: object }).extensions;
      assert.equal(legacyExtensions, undefined);
      const modernExtensions = (modern.getServerCapabilities() as { extensions?: Record<string, unknown> })
        .extensions;
      assert.ok(modernExtensions?.['io.modelcontextprotocol/tasks']);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  test('every tool lists an outputSchema its answers conform to (the SDK client checks them)', async () => {
    const client = await connectV1(stack.gateway.url);
    try {
      const { tools } = await client.listTools();
      for (const tool of tools) assert.equal(tool.outputSchema?.type, 'object', tool.name);
      const start = tools.find((t) => t.name === 'start_mining');
      const properties = (start?.outputSchema?.properties ?? {}) as Record<string, { required?: string[] }>;
      const result = properties.result;
      assert.ok(result?.required?.includes('finalHash'));
      // The v1 client validates structuredContent against the listed outputSchema on every call.
      const done = structured(
        await client.callTool({ name: 'start_mining', arguments: { difficulty: 1, blocks: 1 } }),
      );
      assert.equal(done.status, 'completed');
      const missing = await client.callTool({
        name: 'get_mining_result',
        arguments: { workflow_id: 'mine-x' },
      });
      assert.equal(structured(missing).status, 'not_found');
    } finally {
      await client.close();
    }
  });
});

describe('a body over the limit', () => {
  /**
   * Sends an 8 MiB body over a raw socket, every byte written (waiting on backpressure) before the
   * answer is read: the server must read the body to the end rather than close under the writer.
   */
  function postHuge(url: URL): Promise<{ wrote: number; answer: string }> {
    const size = 8 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      let answer = '';
      let wrote = 0;
      socket.on('data', (data) => {
        answer += data.toString('latin1');
      });
      socket.on('error', reject);
      socket.on('close', () => resolve({ wrote, answer }));
      socket.on('connect', async () => {
        socket.write(
          `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
            `Accept: application/json, text/event-stream\r\nContent-Length: ${size}\r\n\r\n`,
        );
        while (wrote < size) {
          const ok = socket.write(chunk);
          wrote += chunk.length;
          if (!ok) await new Promise((drained) => socket.once('drain', drained));
        }
      });
    });
  }

  test('8 MiB POSTs: each body is read to its end and answered 413 with a JSON-RPC error', async () => {
    for (let round = 0; round < 5; round++) {
      const { wrote, answer } = await postHuge(stack.gateway.url);
      assert.equal(wrote, 8 * 1024 * 1024);
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /"code":-32600/);
      assert.match(answer, /Request body too large/);
    }
  });
});
