// Every MCP method the gateway declares is served, to each revision it is declared for, over HTTP:
// the method list below is the protocol's (2026-07-28 with the Tasks extension, 2025-11-25 with its
// own tasks, SEP-1686), written here apart from the method table, so a method dropped from the
// table, declared for the wrong revision or declared and never registered fails. "Served" is any
// answer but the SDK's -32601: each request is one the gateway answers before Temporal is asked
// (an unknown tool, a malformed task id, a bad URI), or one Temporal's absence answers.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../gateway/app.ts';
import { type Era, METHODS } from '../../gateway/mcp/methods.ts';
import { backendOptions, loadSettings } from '../../gateway/settings/index.ts';
import { TemporalBackend } from '../../gateway/temporal/backend.ts';
import { createTemporalClient } from '../../gateway/temporal/client.ts';
import { framedHeaders, framedRequest, PLAIN_CLIENT } from '../support/mcp-http.ts';

const METHOD_NOT_FOUND = -32601;
const LEGACY_VERSION = '2025-11-25';
const MALFORMED_TASK = 'not-a-task-id';

/** Each method a revision's client may call on this gateway, and params it answers without a run. */
const EXPECTED: Record<Era, Record<string, Record<string, unknown>>> = {
  modern: {
    'server/discover': {},
    'tools/list': {},
    'tools/call': { name: 'no_such_tool', arguments: {} },
    'tasks/get': { taskId: MALFORMED_TASK },
    'tasks/update': { taskId: MALFORMED_TASK, inputResponses: {} },
    'tasks/cancel': { taskId: MALFORMED_TASK },
    'subscriptions/listen': { notifications: { taskIds: [MALFORMED_TASK] } },
    'resources/read': { uri: 'not-an-artifact' },
    'resources/list': {},
    'resources/templates/list': {},
  },
  legacy: {
    initialize: {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: { name: 'methods-served', version: '1.0.0' },
    },
    ping: {},
    'tools/list': {},
    'tools/call': { name: 'no_such_tool', arguments: {} },
    'tasks/get': { taskId: MALFORMED_TASK },
    'tasks/result': { taskId: MALFORMED_TASK },
    'tasks/list': {},
    'tasks/cancel': { taskId: MALFORMED_TASK },
    'resources/read': { uri: 'not-an-artifact' },
    'resources/list': {},
    'resources/templates/list': {},
  },
};

/** The JSON-RPC message of a JSON or an event-stream answer (its first `data:` line). */
async function messageOf(response: Response): Promise<{ result?: unknown; error?: { code: number } }> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
  const data = text.split('\n').find((line) => line.startsWith('data:'));
  assert.ok(data, `an event stream with a message: ${text.slice(0, 200)}`);
  return JSON.parse(data.slice(5));
}

function request(url: URL, era: Era, method: string, params: Record<string, unknown>) {
  // A 2026-07-28 request without the Tasks extension: subscriptions/listen answers -32021 at once.
  if (era === 'modern')
    return fetch(url, {
      method: 'POST',
      headers: framedHeaders(method, params),
      body: JSON.stringify(framedRequest(method, params, PLAIN_CLIENT)),
      signal: AbortSignal.timeout(10_000),
    });
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY_VERSION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
}

describe('every declared method is served to each of its revisions', () => {
  let gateway: FastifyInstance;
  let url: URL;
  before(async () => {
    const settings = await loadSettings({
      TEMPORAL_ADDRESS: '127.0.0.1:9',
      MCP_READY_TIMEOUT_MS: '300',
      MCP_TEMPORAL_TIMEOUT_MS: '500',
    });
    const client = await createTemporalClient(settings.temporal, settings.temporalTimeoutMs);
    const backend = new TemporalBackend(client, backendOptions(settings, Buffer.alloc(32, 7)));
    gateway = buildApp(settings, { backend });
    gateway.addHook('onClose', async () => {
      await client.connection.ensureConnected().catch(() => {});
      await client.connection.close().catch(() => {});
    });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    url = new URL(`http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}/mcp`);
  });
  after(() => gateway.close());

  test('the table declares exactly the protocol methods, each for its revisions', () => {
    for (const era of ['modern', 'legacy'] as const) {
      const declared = Object.entries(METHODS)
        .filter(([, declaration]) => declaration.eras.includes(era))
        .map(([method]) => method);
      assert.deepEqual(declared.sort(), Object.keys(EXPECTED[era]).sort(), era);
    }
  });

  for (const era of ['modern', 'legacy'] as const)
    for (const [method, params] of Object.entries(EXPECTED[era]))
      test(`${era} ${method} is served`, async () => {
        const response = await request(url, era, method, params);
        const message = await messageOf(response);
        assert.ok(message.result !== undefined || message.error !== undefined, JSON.stringify(message));
        assert.notEqual(message.error?.code, METHOD_NOT_FOUND, `${method}: ${JSON.stringify(message)}`);
      });

  test('a method no revision has is not found (the check above can fail)', async () => {
    const message = await messageOf(await request(url, 'legacy', 'tasks/update', { taskId: MALFORMED_TASK }));
    assert.equal(message.error?.code, METHOD_NOT_FOUND);
  });
});
