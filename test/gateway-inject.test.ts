// The gateway's HTTP admission, driven in-process with Fastify's inject: no socket and no Temporal
// (the client connects lazily, to an address nothing listens on). Everything here is answered
// before anything would reach Temporal: probes, bodies refused, tokens, headers, tools/list, and
// tasks/* for an id that is not the caller's (told by its owner tag alone).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../gateway/app.ts';
import { backendOptions, loadSettings } from '../gateway/settings/index.ts';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import { createTemporalClient } from '../gateway/temporal/client.ts';
import { newTaskId } from '../gateway/temporal/task-ids.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { framedHeaders, framedRequest, PLAIN_CLIENT, TASKS_CLIENT } from './support/mcp-http.ts';

const TOKEN = 'alice-token-0123456789abcdef';
const SECRET = Buffer.from(TEST_SERVER_SECRET);

/** The app over settings from `env`, on a Temporal address nothing listens on. */
async function app(env: Record<string, string> = {}): Promise<FastifyInstance> {
  const settings = await loadSettings({
    TEMPORAL_ADDRESS: '127.0.0.1:9',
    MCP_READY_TIMEOUT_MS: '300',
    MCP_TEMPORAL_TIMEOUT_MS: '500',
    ...env,
  });
  const client = await createTemporalClient(settings.temporal, settings.temporalTimeoutMs);
  const backend = new TemporalBackend(client, backendOptions(settings, SECRET));
  const built = buildApp(settings, { backend });
  built.addHook('onClose', async () => {
    // A connection attempt still pending must settle first: closing under it throws from inside.
    await client.connection.ensureConnected().catch(() => {});
    await client.connection.close().catch(() => {});
  });
  return built;
}

/** A 2026-07-28 request to /mcp, as a client framing it correctly sends it. */
function mcp(method: string, params: Record<string, unknown>, framing = TASKS_CLIENT) {
  return {
    method: 'POST' as const,
    url: '/mcp',
    headers: framedHeaders(method, params),
    payload: JSON.stringify(framedRequest(method, params, framing)),
  };
}

describe('without authentication (loopback)', () => {
  let gateway: FastifyInstance;
  before(async () => {
    gateway = await app();
  });
  after(() => gateway.close());

  test('/healthz answers while Temporal is down; /readyz says 503 within its bound', async () => {
    assert.deepEqual((await gateway.inject({ url: '/healthz' })).json(), { status: 'ok' });
    const ready = await gateway.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json(), { status: 'unavailable', temporal: 'unreachable' });
  });

  test('/metrics is Prometheus text', async () => {
    const metrics = await gateway.inject({ url: '/metrics' });
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /# TYPE mcp_gateway_tool_calls_total counter/);
  });

  test('a body that is not JSON is a parse error; one nested too deep is refused before parsing', async () => {
    const broken = await gateway.inject({ ...mcp('tools/list', {}), payload: '{"jsonrpc":' });
    assert.equal(broken.statusCode, 400);
    assert.equal(broken.json().error.code, -32700);
    const deep = await gateway.inject({
      ...mcp('tools/list', {}),
      payload: `${'['.repeat(100)}${']'.repeat(100)}`,
    });
    assert.equal(deep.statusCode, 400);
    assert.match(deep.json().error.message, /deeper than 64 levels/);
  });

  test('a Host header that is not loopback is refused (DNS rebinding)', async () => {
    const request = mcp('tools/list', {});
    const answer = await gateway.inject({
      ...request,
      headers: { ...request.headers, host: 'evil.example:3000' },
    });
    assert.equal(answer.statusCode, 403);
  });

  test('tools/list: the start tool and its companions, to clients of either revision', async () => {
    const modern = (await gateway.inject(mcp('tools/list', {}))).json();
    assert.deepEqual(
      modern.result.tools.map((tool: { name: string }) => tool.name),
      ['start_mining', 'get_mining_result', 'cancel_mining', 'respond_to_mining'],
    );
    const legacy = await gateway.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const listed = /data: (.*)/.exec(legacy.body)?.[1] ?? legacy.body;
    const tools = JSON.parse(listed).result.tools as { name: string }[];
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['start_mining', 'get_mining_result', 'cancel_mining', 'respond_to_mining'],
    );
  });

  test('a required header the body names but the request lacks is 400 / -32020', async () => {
    const request = mcp('tools/call', { name: 'start_mining', arguments: {} });
    const { 'mcp-name': _name, ...headers } = request.headers;
    const answer = await gateway.inject({ ...request, headers });
    assert.equal(answer.statusCode, 400);
    assert.equal(answer.json().error.code, -32020);
  });

  test("tasks/* without the Tasks extension is -32021; another caller's task is -32602, no Temporal call", async () => {
    const theirs = newTaskId(SECRET, 'someone-else', 'mine');
    const plain = await gateway.inject(mcp('tasks/get', { taskId: theirs }, PLAIN_CLIENT));
    assert.equal(plain.json().error.code, -32021);
    const started = Date.now();
    const foreign = await gateway.inject(mcp('tasks/get', { taskId: theirs }));
    assert.equal(foreign.json().error.code, -32602);
    // Temporal is unreachable: an answer that asked it would take the call deadline (500 ms).
    assert.ok(Date.now() - started < 500, `answered in ${Date.now() - started} ms`);
  });
});

describe('with bearer tokens', () => {
  let gateway: FastifyInstance;
  before(async () => {
    gateway = await app({ MCP_AUTH_TOKENS: `alice:${TOKEN}` });
  });
  after(() => gateway.close());

  test('no token and a wrong token are 401 with a Bearer challenge; the right one is served', async () => {
    const request = mcp('tools/list', {});
    const none = await gateway.inject(request);
    assert.equal(none.statusCode, 401);
    assert.match(String(none.headers['www-authenticate']), /^Bearer realm="mcp"/);
    const wrong = await gateway.inject({
      ...request,
      headers: { ...request.headers, authorization: 'Bearer not-the-token-at-all' },
    });
    assert.equal(wrong.statusCode, 401);
    assert.match(String(wrong.headers['www-authenticate']), /error="invalid_token"/);
    const right = await gateway.inject({
      ...request,
      headers: { ...request.headers, authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(right.statusCode, 200);
    assert.equal(right.json().result.tools.length, 4);
  });

  test('the probes stay open', async () => {
    assert.equal((await gateway.inject({ url: '/healthz' })).statusCode, 200);
  });
});
