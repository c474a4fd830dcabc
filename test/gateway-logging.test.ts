// The gateway's logs: JSON lines in which every line about a task carries its task id, and no
// secret (Authorization header, bearer token, token-like query value or field) is ever printed.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { gatewayConfig } from '../gateway/config.ts';
import { buildApp } from '../gateway/http/app.ts';
import { scrubSecrets } from '../gateway/http/logging.ts';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import { PLAIN_CLIENT, rpcResult } from './support/mcp-http.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

const SECRET = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

type Line = Record<string, unknown>;

let lines: Line[] = [];
let app: FastifyInstance;
let origin: string;
let url: URL;
let temporal: TestTemporal;

before(async () => {
  // A real dev server and no worker: the runs these tests start stay running.
  temporal = await startTestTemporal();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text));
      done();
    },
  });
  const config = gatewayConfig({
    MCP_PORT: '0',
    MCP_WAIT_BUDGET_MS: '0',
    MCP_QUERY_TIMEOUT_MS: '300',
    TEMPORAL_TASK_QUEUE: `gateway-logging-${process.pid}`,
  });
  app = buildApp(config, {
    backend: new TemporalBackend(temporal.client, {
      namespace: 'default',
      callTimeoutMs: config.temporalTimeoutMs,
      queryTimeoutMs: config.queryTimeoutMs,
      serverSecret: Buffer.from('logging-test-server-secret-0123456789abcdef'),
    }),
    logger: { level: 'trace', stream },
  });
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
  url = new URL('/mcp', origin);
});

after(async () => {
  await app?.close();
  await temporal?.close();
});

/** The lines one request logged, by the id Fastify gave it. */
function requestLines(reqId: unknown): Line[] {
  return lines.filter((line) => line.reqId === reqId);
}

function lineWith(message: string, taskId?: string): Line {
  const line = lines.find((l) => l.msg === message && (taskId === undefined || l.taskId === taskId));
  assert.ok(line, `no "${message}" line${taskId ? ` for ${taskId}` : ''} in ${JSON.stringify(lines)}`);
  return line;
}

describe('task ids in the logs', () => {
  test('start_mining: the answer line and "request completed" carry the new task id', async () => {
    lines = [];
    const task = await rpcResult(url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 12, blocks: 2 },
    });
    const taskId = String(task.taskId);
    const answered = lineWith('tools/call', taskId);
    assert.equal(answered.tool, 'start_mining');
    assert.equal(answered.outcome, 'task');
    const completed = requestLines(answered.reqId).find((l) => l.msg === 'request completed');
    assert.equal(completed?.taskId, taskId);
  });

  test('tasks/get: every line of the request carries the task id, "incoming request" included', async () => {
    const { taskId } = await rpcResult(url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 12, blocks: 2 },
    });
    lines = [];
    await rpcResult(url, 'tasks/get', { taskId });
    const mine = requestLines(lineWith('tasks/get', String(taskId)).reqId);
    assert.deepEqual(
      mine.map((l) => l.msg),
      ['incoming request', 'tasks/get', 'request completed'],
    );
    for (const line of mine) assert.equal(line.taskId, taskId, JSON.stringify(line));
  });

  test('get_mining_result (2025-era polls): every line after the body is read carries the workflow id', async () => {
    const started = await rpcResult(
      url,
      'tools/call',
      { name: 'start_mining', arguments: { difficulty: 12, blocks: 2 } },
      PLAIN_CLIENT,
    );
    const workflowId = String((started.structuredContent as Line).workflow_id);
    assert.equal(lineWith('tools/call', workflowId).outcome, 'start_poll');
    lines = [];
    await rpcResult(url, 'tools/call', { name: 'get_mining_result', arguments: { workflow_id: workflowId } });
    const mine = requestLines(lineWith('tools/call', workflowId).reqId);
    const afterBody = mine.filter((l) => l.msg !== 'incoming request');
    assert.deepEqual(
      afterBody.map((l) => l.msg),
      ['tools/call', 'request completed'],
    );
    for (const line of afterBody) assert.equal(line.taskId, workflowId, JSON.stringify(line));
  });

  test('an unknown task id is logged with the refusal', async () => {
    lines = [];
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tasks/get',
        'mcp-name': 'mine-nobody',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/get',
        params: {
          taskId: 'mine-nobody',
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {
              extensions: { 'io.modelcontextprotocol/tasks': {} },
            },
          },
        },
      }),
    });
    await answer.text();
    const refused = lineWith('tasks/get refused', 'mine-nobody');
    assert.equal(refused.outcome, 'not_found');
  });
});

describe('no secrets in the logs', () => {
  test('an Authorization header, cookies and token query values are never printed', async () => {
    lines = [];
    const headers = {
      authorization: `Bearer ${SECRET}`,
      cookie: `session=${SECRET}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    // An MCP request, a probe, and a request the gateway refuses (a body that is not JSON).
    const calls = [
      fetch(new URL(`/mcp?access_token=${SECRET}`, origin), {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }),
      fetch(new URL(`/healthz?token=${SECRET}`, origin), { headers }),
      fetch(new URL('/mcp', origin), { method: 'POST', headers, body: `{"token": "${SECRET}"` }),
    ];
    for (const response of await Promise.all(calls)) await response.text();
    // Code that logs a header object, a token field, or a message quoting a bearer token.
    app.log.info({ headers: { authorization: `Bearer ${SECRET}` }, token: SECRET }, `got Bearer ${SECRET}`);
    app.log.error(new Error(`upstream refused Bearer ${SECRET}`), 'failed');

    const printed = lines.map((line) => JSON.stringify(line)).join('\n');
    assert.ok(lines.filter((l) => l.msg === 'incoming request').length >= 3, printed);
    assert.ok(!printed.includes(SECRET), `a secret was logged:\n${printed}`);
    assert.match(printed, /\[redacted\]/);
  });

  test('scrubSecrets removes bearer tokens and token-like query values, and nothing else', () => {
    assert.equal(scrubSecrets(`Authorization: Bearer ${SECRET}`), 'Authorization: Bearer [redacted]');
    assert.equal(
      scrubSecrets(`/mcp?api_key=${SECRET}&x=1&token=${SECRET}`),
      '/mcp?api_key=[redacted]&x=1&token=[redacted]',
    );
    assert.equal(scrubSecrets('/mcp?workflow=mine-1'), '/mcp?workflow=mine-1');
  });
});
