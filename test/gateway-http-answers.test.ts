// How the gateway writes its HTTP answers: a JSON answer leaves in one piece with its
// Content-Length (not chunked); an event stream (what a legacy 2025 request gets) is streamed; a
// notification is acknowledged with an empty 202.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { PROTOCOL_VERSION, TASKS_CLIENT } from './support/mcp-http.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

let temporal: TestTemporal;
let gateway: TestGateway;

before(async () => {
  temporal = await startTestTemporal();
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: `http-answers-${process.pid}`,
  });
});

after(async () => {
  await gateway?.close();
  await temporal?.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One POST /mcp with node:http, so the answer's framing headers are seen as sent. */
function post(headers: Record<string, string>, body: unknown): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      gateway.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const envelope = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': TASKS_CLIENT.clientInfo,
  'io.modelcontextprotocol/clientCapabilities': TASKS_CLIENT.clientCapabilities,
};

function assertOnePiece(answer: RawAnswer): Record<string, unknown> {
  assert.equal(answer.headers['transfer-encoding'], undefined, 'not chunked');
  assert.equal(answer.headers['content-length'], String(Buffer.byteLength(answer.body)));
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  return JSON.parse(answer.body);
}

describe('HTTP answers', () => {
  test('a 2026-07-28 request: JSON with its Content-Length, not chunked', async () => {
    const answer = await post(
      { 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-method': 'tools/list' },
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope } },
    );
    assert.equal(answer.status, 200);
    const message = assertOnePiece(answer);
    assert.equal(message.id, 7);
    const tools = (message.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    assert.ok(tools.includes('start_mining'), tools.join(', '));
  });

  test('an error answer too: an unknown task is -32602 in one piece', async () => {
    const answer = await post(
      { 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-method': 'tasks/get', 'mcp-name': 'mine-unknown' },
      { jsonrpc: '2.0', id: 'g1', method: 'tasks/get', params: { taskId: 'mine-unknown', _meta: envelope } },
    );
    const message = assertOnePiece(answer);
    assert.equal(message.id, 'g1');
    assert.equal((message.error as { code: number }).code, -32602);
  });

  test('a legacy 2025-11-25 initialize: streamed as the event stream it asked for; its notification: an empty 202', async () => {
    const init = await post(
      {},
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
    );
    assert.equal(init.status, 200);
    assert.match(String(init.headers['content-type']), /^text\/event-stream/);
    const data = init.body
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)));
    assert.equal(data.length, 1, init.body);
    assert.equal(data[0].id, 1);
    assert.equal(data[0].result.protocolVersion, '2025-11-25');

    const note = await post(
      { 'mcp-protocol-version': '2025-11-25' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    );
    assert.equal(note.status, 202);
    assert.equal(note.body, '');
  });
});
