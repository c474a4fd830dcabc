// SEP-2243 request headers on 2026-07-28 requests: the rules of gateway/http/request-headers.ts as
// pure functions, then over real HTTP against the gateway on a real dev server and worker, with a
// catalog tool whose arguments are mirrored into Mcp-Param-* headers (x-mcp-header). A standard
// header a request must carry and does not → 400 / -32020, nothing started; tasks/* without
// Mcp-Name is served from params.taskId; 2025-11-25 requests are not judged.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  decodeHeaderValue,
  encodeHeaderValue,
  judgeRequestHeaders,
  paramHeaderRefusal,
} from '../gateway/http/request-headers.ts';
import { HEADER_MISMATCH } from '../gateway/mcp/errors.ts';
import { headerDeclarations, type ParamHeader } from '../gateway/mcp/schemas.ts';
import { connectV1, connectV2, structured } from './support/mcp-clients.ts';
import { framedHeaders, framedRequest, PROTOCOL_VERSION, rpc, TASKS_CLIENT } from './support/mcp-http.ts';
import { startTestStack, type TestStack } from './support/stack.ts';
import { eventually } from './support/temporal.ts';

const TOOL = 'mine_tagged';

/** A catalog tool that mirrors three of its arguments into headers: an integer, a string, a boolean. */
const TAGGED_SCHEMA = {
  type: 'object',
  properties: {
    difficulty: { type: 'integer', minimum: 1, maximum: 32, 'x-mcp-header': 'Difficulty' },
    blocks: { type: 'integer', minimum: 1, maximum: 20, default: 1 },
    data: { type: 'string', maxLength: 256, default: '', 'x-mcp-header': 'Data' },
    requireApproval: { type: 'boolean', 'x-mcp-header': 'Approval' },
  },
  required: ['difficulty'],
  additionalProperties: false,
};

// ---- the rules, as pure functions ------------------------------------------------------------------

/** The declarations the catalog keeps for the tool (it refuses a schema with a bad one). */
const DECLARED = headerDeclarations(TAGGED_SCHEMA) as ParamHeader[];

/** A 2026-07-28 request body, as the SDK's classifier needs it. */
function modern(method: string, params: Record<string, unknown> = {}) {
  return framedRequest(method, params, TASKS_CLIENT, 7);
}

/** The headers a conforming client sends for it, lower-cased as Node hands them over. */
function sent(method: string, params: Record<string, unknown> = {}): Record<string, string> {
  const { 'content-type': _type, accept: _accept, ...rest } = framedHeaders(method, params);
  return rest;
}

/** The verdict, its classification checked apart (the MCP layer goes on with it). */
function judge(headers: Record<string, string>, body: unknown) {
  const verdict = judgeRequestHeaders({
    httpMethod: 'POST',
    headers,
    body,
    paramHeaders: new Map([[TOOL, DECLARED]]),
  });
  if (!verdict.ok) return verdict;
  const { route, ...rest } = verdict;
  assert.ok(['modern', 'legacy', 'reject'].includes(route.kind), route.kind);
  return rest;
}

/** What a refusal says (its message), or undefined when the request passes. */
function refusal(verdict: ReturnType<typeof judge>): string | undefined {
  return verdict.ok ? undefined : verdict.refusal.message;
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _gone, ...rest } = headers;
  return rest;
}

describe('header values: the Base64 sentinel and RFC 9110 field values', () => {
  test('the spec examples encode as it shows, and decode back', () => {
    const examples: [string, string][] = [
      ['us-west1', 'us-west1'],
      ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
      [' padded ', '=?base64?IHBhZGRlZCA=?='],
      ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
      ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ];
    for (const [value, encoded] of examples) {
      assert.equal(encodeHeaderValue(value), encoded, value);
      assert.equal(decodeHeaderValue(encoded), value, encoded);
    }
  });

  test('optional whitespace around a value is not part of it', () => {
    assert.equal(decodeHeaderValue('  start_mining\t '), 'start_mining');
    assert.equal(decodeHeaderValue(' =?base64?SGVsbG8=?= '), 'Hello');
  });

  test('bad padding, characters outside the alphabet and non-UTF-8 payloads are no value', () => {
    assert.equal(decodeHeaderValue('=?base64?SGVsbG8?='), undefined);
    assert.equal(decodeHeaderValue('=?base64?SGVs!!!bG8=?='), undefined);
    assert.equal(decodeHeaderValue('=?base64?/w==?='), undefined, 'byte 0xFF is not UTF-8');
  });

  test('characters a field value may not hold are no value: raw non-ASCII, control characters', () => {
    assert.equal(decodeHeaderValue('café'), undefined);
    assert.equal(decodeHeaderValue('a\u0000b'), undefined);
  });

  test('without the exact prefix and suffix a value is taken literally', () => {
    assert.equal(decodeHeaderValue('SGVsbG8='), 'SGVsbG8=');
    assert.equal(decodeHeaderValue('=?base64?SGVsbG8='), '=?base64?SGVsbG8=');
    assert.equal(
      decodeHeaderValue('=?BASE64?SGVsbG8=?='),
      '=?BASE64?SGVsbG8=?=',
      'the markers are case-sensitive',
    );
  });
});

describe('x-mcp-header declarations of an inputSchema', () => {
  test('properties reached through `properties` keys, at any depth', () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
      },
    };
    assert.deepEqual(
      headerDeclarations(schema).map(({ path, name }) => ({ path, name })),
      [
        { path: ['region'], name: 'Region' },
        { path: ['target', 'zone'], name: 'Zone' },
      ],
    );
  });

  test('none under items, composition keywords or additionalProperties (the root and bad names are there for the catalog to refuse)', () => {
    const schema = {
      type: 'object',
      'x-mcp-header': 'Root',
      properties: {
        list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
        either: { anyOf: [{ type: 'string', 'x-mcp-header': 'Either' }] },
        spaced: { type: 'string', 'x-mcp-header': 'Not A Token' },
      },
      additionalProperties: { type: 'string', 'x-mcp-header': 'Extra' },
    };
    assert.deepEqual(
      headerDeclarations(schema).map(({ path, name }) => ({ path, name })),
      [
        { path: [], name: 'Root' },
        { path: ['spaced'], name: 'Not A Token' },
      ],
    );
  });
});

describe('Mcp-Param-* headers against the arguments', () => {
  const declarations = DECLARED;
  const check = (args: Record<string, unknown>, headers: Record<string, string>) =>
    paramHeaderRefusal(declarations, args, headers)?.data.mismatch;

  test('headers that carry the arguments pass: plain, Base64, booleans, integers compared as numbers', () => {
    assert.equal(
      check({ difficulty: 3, data: 'abc' }, { 'mcp-param-difficulty': '3', 'mcp-param-data': 'abc' }),
      undefined,
    );
    assert.equal(
      check(
        { difficulty: 3, data: 'Hello, 世界' },
        { 'mcp-param-difficulty': '3', 'mcp-param-data': '=?base64?SGVsbG8sIOS4lueVjA==?=' },
      ),
      undefined,
    );
    assert.equal(
      check(
        { difficulty: 42, requireApproval: false },
        { 'mcp-param-difficulty': '42.0', 'mcp-param-approval': 'false' },
      ),
      undefined,
    );
  });

  test('an argument that is absent or null expects no header, and one sent anyway is not judged', () => {
    assert.equal(check({}, {}), undefined);
    assert.equal(check({ difficulty: null }, {}), undefined);
    assert.equal(check({}, { 'mcp-param-data': 'whatever' }), undefined);
  });

  test('an argument present without its header is refused, naming the header', () => {
    const mismatch = check({ difficulty: 3, data: 'abc' }, { 'mcp-param-difficulty': '3' });
    assert.equal(mismatch?.header, 'Mcp-Param-Data');
    assert.match(mismatch?.body ?? '', /absent/);
  });

  test('a header that says otherwise is refused: another value, another case, True for true', () => {
    assert.equal(check({ difficulty: 3 }, { 'mcp-param-difficulty': '4' })?.header, 'Mcp-Param-Difficulty');
    assert.equal(
      check({ difficulty: 3, data: 'abc' }, { 'mcp-param-difficulty': '3', 'mcp-param-data': 'ABC' })?.header,
      'Mcp-Param-Data',
    );
    assert.equal(
      check(
        { difficulty: 3, requireApproval: true },
        { 'mcp-param-difficulty': '3', 'mcp-param-approval': 'True' },
      )?.header,
      'Mcp-Param-Approval',
    );
  });

  test('bad characters or bad Base64 in a header are refused', () => {
    for (const value of ['café', '=?base64?SGVsbG8?=', '=?base64?SGVs!!!bG8=?=']) {
      const mismatch = check(
        { difficulty: 3, data: 'Hello' },
        { 'mcp-param-difficulty': '3', 'mcp-param-data': value },
      );
      assert.equal(mismatch?.header, 'Mcp-Param-Data', value);
      assert.match(mismatch?.body ?? '', /may not carry|Base64/, value);
    }
  });
});

describe('standard headers of a 2026-07-28 request', () => {
  const call = { name: 'start_mining', arguments: {} };

  test('a request with every header it needs passes, with nothing added', () => {
    assert.deepEqual(judge(sent('tools/call', call), modern('tools/call', call)), { ok: true, add: {} });
    assert.deepEqual(judge(sent('tools/list'), modern('tools/list')), { ok: true, add: {} });
  });

  test('a missing MCP-Protocol-Version or Mcp-Method is refused on every method', () => {
    for (const method of ['tools/list', 'tools/call', 'tasks/get', 'subscriptions/listen']) {
      const params = method === 'tools/call' ? call : method === 'tasks/get' ? { taskId: 'mine-x' } : {};
      const body = modern(method, params);
      assert.match(
        refusal(judge(without(sent(method, params), 'mcp-method'), body)) ?? '',
        /Mcp-Method header is absent/,
        method,
      );
      assert.match(
        refusal(judge(without(sent(method, params), 'mcp-protocol-version'), body)) ?? '',
        /MCP-Protocol-Version header is absent/,
        method,
      );
    }
  });

  // prompts/get, which the gateway does not serve, is the SDK's to judge.
  test('Mcp-Name missing on tools/call or resources/read is refused', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['tools/call', call],
      ['resources/read', { uri: 'file:///a/b.json' }],
    ];
    for (const [method, params] of cases) {
      const verdict = judge(
        { 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-method': method },
        modern(method, params),
      );
      assert.match(
        refusal(verdict) ?? '',
        /^Bad Request: the request headers and body disagree: .*Mcp-Name header is absent/,
        method,
      );
      assert.ok(!verdict.ok && verdict.refusal.data.mismatch.header === '(missing)', "the SDK's shape");
    }
  });

  test('tasks/* without Mcp-Name is served from params.taskId: the header is supplied, encoded where it must be', () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const headers = { 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-method': method };
      assert.deepEqual(judge(headers, modern(method, { taskId: 'mine-abc' })), {
        ok: true,
        add: { 'mcp-name': 'mine-abc' },
      });
    }
    const odd = judge(
      { 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-method': 'tasks/get' },
      modern('tasks/get', { taskId: 'é' }),
    );
    assert.deepEqual(odd, { ok: true, add: { 'mcp-name': '=?base64?w6k=?=' } });
  });

  test('2025-era requests and notifications are not judged', () => {
    const legacy = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call };
    assert.deepEqual(judge({}, legacy), { ok: true, add: {} });
    const { id: _id, ...notification } = modern('notifications/cancelled', { requestId: 1 });
    assert.deepEqual(judge({}, notification), { ok: true, add: {} });
  });

  test('on tools/call of a tool with x-mcp-header arguments, its Mcp-Param-* headers are judged too', () => {
    const tagged = { name: TOOL, arguments: { difficulty: 2 } };
    const verdict = judge(sent('tools/call', tagged), modern('tools/call', tagged));
    assert.ok(
      !verdict.ok && verdict.refusal.data.mismatch.header === 'Mcp-Param-Difficulty',
      refusal(verdict),
    );
    const headers = { ...sent('tools/call', tagged), 'mcp-param-difficulty': '2' };
    assert.deepEqual(judge(headers, modern('tools/call', tagged)), { ok: true, add: {} });
  });
});

// ---- over HTTP, against the real gateway -------------------------------------------------------------

let stack: TestStack;
let catalogDir: string;

before(async () => {
  catalogDir = mkdtempSync(join(tmpdir(), 'gateway-headers-'));
  const catalog = join(catalogDir, 'tools.json');
  const tools = [
    {
      name: TOOL,
      description: 'Mines a chain; difficulty, data and requireApproval travel in headers too.',
      workflow: 'mineChain',
      progressQuery: 'mcp.progress',
      inputSignal: 'mcp.input',
      inputSchema: TAGGED_SCHEMA,
    },
  ];
  writeFileSync(catalog, JSON.stringify({ tools }));
  stack = await startTestStack('gateway-headers', { waitBudgetMs: 3_000, env: { MCP_TOOLS_FILE: catalog } });
});

after(async () => {
  await stack?.close();
  if (catalogDir) rmSync(catalogDir, { recursive: true, force: true });
});

interface RawAnswer {
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

/** One POST with node:http: header values reach the gateway exactly as written here (fetch trims them). */
function post(headers: Record<string, string>, body: unknown): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      stack.gateway.url,
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
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
          } catch {
            reject(new Error(`not JSON (${res.statusCode}): ${text.slice(0, 200)}`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** 400 / -32020, its message saying what is wrong. */
function assertRefused(answer: RawAnswer, says: RegExp) {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.error?.code, HEADER_MISMATCH);
  assert.match(String(answer.body.error?.message), /^Bad Request: the request headers and body disagree: /);
  assert.match(String(answer.body.error?.message), says);
}

/** Served: a result, whatever the run's state (a busy machine may outlast the wait budget). */
function assertServed(answer: RawAnswer) {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.error, undefined);
  assert.ok(answer.body.result, JSON.stringify(answer.body));
}

const runsOfTool = async () => (await stack.temporal.client.workflow.count(`McpTool = "${TOOL}"`)).count;

/** Exactly one run more than `before`, once visible: the refused calls before it started nothing. */
async function assertOneMoreRun(before: number): Promise<void> {
  const after = await eventually(
    async () => {
      const count = await runsOfTool();
      return count > before ? count : undefined;
    },
    10_000,
    'the accepted run in the visibility store',
  );
  assert.equal(after, before + 1);
}

describe('over HTTP: standard headers', () => {
  const quick = { name: TOOL, arguments: { difficulty: 1 } };
  const quickHeaders = () => ({ ...sent('tools/call', quick), 'mcp-param-difficulty': '1' });

  test('tools/call without Mcp-Name, tools/list without Mcp-Method, a request without MCP-Protocol-Version: 400 / -32020, no run started', async () => {
    const before = await runsOfTool();
    assertRefused(
      await post(without(quickHeaders(), 'mcp-name'), modern('tools/call', quick)),
      /Mcp-Name header is absent/,
    );
    assertRefused(
      await post(without(quickHeaders(), 'mcp-method'), modern('tools/call', quick)),
      /Mcp-Method header is absent/,
    );
    assertRefused(
      await post(without(quickHeaders(), 'mcp-protocol-version'), modern('tools/call', quick)),
      /MCP-Protocol-Version header is absent/,
    );
    assertRefused(
      await post(without(sent('tools/list'), 'mcp-method'), modern('tools/list')),
      /Mcp-Method header is absent/,
    );
    // One accepted call, counted once it is visible: the refused ones before it started nothing.
    assertServed(await post(quickHeaders(), modern('tools/call', quick)));
    await assertOneMoreRun(before);
  });

  test('a header naming another tool or method is refused (by the SDK), in the same shape', async () => {
    const other = await post(
      { ...quickHeaders(), 'mcp-name': 'get_mine_tagged_result' },
      modern('tools/call', quick),
    );
    assertRefused(other, /Mcp-Name header names "get_mine_tagged_result"/);
    const method = await post({ ...sent('tools/list'), 'mcp-method': 'TOOLS/LIST' }, modern('tools/list'));
    assertRefused(method, /Mcp-Method header names TOOLS\/LIST/);
  });

  test('whitespace around header values is accepted (RFC 9110 OWS)', async () => {
    const headers = {
      ...quickHeaders(),
      'mcp-name': `  ${TOOL}\t `,
      'mcp-method': ' tools/call ',
      'mcp-param-difficulty': ' 1 ',
    };
    assertServed(await post(headers, modern('tools/call', quick)));
  });

  test('tasks/get and tasks/cancel without Mcp-Name are served from params.taskId; one naming another task is refused', async () => {
    const long = { name: TOOL, arguments: { difficulty: 1, blocks: 1, requireApproval: true } };
    const created = await post(
      { ...sent('tools/call', long), 'mcp-param-difficulty': '1', 'mcp-param-approval': 'true' },
      modern('tools/call', long),
    );
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const taskId = String(created.body.result?.taskId);
    assert.equal(created.body.result?.resultType, 'task');
    const wrong = await post(
      { ...sent('tasks/get', { taskId }), 'mcp-name': `${taskId}-other` },
      modern('tasks/get', { taskId }),
    );
    assertRefused(wrong, /Mcp-Name header names/);
    const noMethod = await post(
      without(sent('tasks/get', { taskId }), 'mcp-method'),
      modern('tasks/get', { taskId }),
    );
    assertRefused(noMethod, /Mcp-Method header is absent/);
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const answer = await post(without(sent(method, { taskId }), 'mcp-name'), modern(method, { taskId }));
      assert.equal(answer.status, 200, `${method}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.result?.resultType, 'complete');
    }
    const cancelled = await eventually(
      async () => {
        const { result } = await rpc(stack.gateway.url, 'tasks/get', { taskId });
        return result?.status === 'cancelled' ? result : undefined;
      },
      10_000,
      'the cancelled task',
    );
    assert.equal(cancelled.taskId, taskId);
  });

  test('subscriptions/listen without Mcp-Method is refused too (it is served past the SDK handler)', async () => {
    const params = { notifications: { taskIds: ['mine-none'] } };
    assertRefused(
      await post(
        without(sent('subscriptions/listen', params), 'mcp-method'),
        modern('subscriptions/listen', params),
      ),
      /Mcp-Method header is absent/,
    );
  });

  test('a 2025-11-25 client is not judged: it sends none of these headers and is served', async () => {
    const client = await connectV1(stack.gateway.url);
    try {
      const result = await client.callTool({ name: TOOL, arguments: { difficulty: 1, data: 'legacy' } });
      assert.equal(structured(result).status, 'completed');
    } finally {
      await client.close();
    }
  });
});

describe('over HTTP: custom headers (x-mcp-header)', () => {
  const call = (args: Record<string, unknown>) => ({ name: TOOL, arguments: { difficulty: 1, ...args } });
  const headersFor = (params: Record<string, unknown>, extra: Record<string, string>) => ({
    ...sent('tools/call', params),
    'mcp-param-difficulty': '1',
    ...extra,
  });
  const send = (args: Record<string, unknown>, extra: Record<string, string>) => {
    const params = call(args);
    return post(headersFor(params, extra), modern('tools/call', params));
  };

  test('tools/list shows the declarations as the catalog wrote them', async () => {
    const listed = await rpc(stack.gateway.url, 'tools/list', {});
    const tools = (listed.result?.tools ?? []) as { name: string; inputSchema: typeof TAGGED_SCHEMA }[];
    const tool = tools.find((t) => t.name === TOOL);
    assert.equal(tool?.inputSchema.properties.data['x-mcp-header'], 'Data');
    assert.equal(tool?.inputSchema.properties.difficulty['x-mcp-header'], 'Difficulty');
  });

  test('headers that carry the arguments are served: plain, Base64 for non-ASCII, a literal that only looks encoded', async () => {
    assertServed(await send({ data: 'us-west1' }, { 'mcp-param-data': 'us-west1' }));
    assertServed(
      await send({ data: 'Hello, 世界' }, { 'mcp-param-data': '=?base64?SGVsbG8sIOS4lueVjA==?=' }),
    );
    assertServed(await send({ data: 'SGVsbG8=' }, { 'mcp-param-data': 'SGVsbG8=' }));
    assertServed(await send({ data: '=?base64?SGVsbG8=' }, { 'mcp-param-data': '=?base64?SGVsbG8=' }));
    assertServed(
      await send(
        { requireApproval: false },
        { 'mcp-param-approval': 'false', 'mcp-param-difficulty': '1.0' },
      ),
    );
    assertServed(await send({}, {}));
  });

  test('missing, mismatched, badly encoded or non-ASCII headers: 400 / -32020, no run started', async () => {
    const before = await runsOfTool();
    assertRefused(await send({ data: 'test-value' }, {}), /Mcp-Param-Data/);
    assertRefused(await send({ data: 'Hello' }, { 'mcp-param-data': 'Goodbye' }), /Mcp-Param-Data/);
    assertRefused(
      await send({ data: 'Hello' }, { 'mcp-param-data': '=?base64?SGVsbG8?=' }),
      /Mcp-Param-Data/,
    );
    assertRefused(
      await send({ data: 'Hello' }, { 'mcp-param-data': '=?base64?SGVs!!!bG8=?=' }),
      /Mcp-Param-Data/,
    );
    assertRefused(await send({ data: 'café' }, { 'mcp-param-data': 'café' }), /Mcp-Param-Data/);
    assertRefused(await send({}, { 'mcp-param-difficulty': '2' }), /Mcp-Param-Difficulty/);
    assertRefused(
      await send({ requireApproval: true }, { 'mcp-param-approval': 'TRUE' }),
      /Mcp-Param-Approval/,
    );
    assertServed(await send({ data: 'after the refusals' }, { 'mcp-param-data': 'after the refusals' }));
    await assertOneMoreRun(before);
  });

  test('the MCP SDK v2 client, calling before it listed the tools, is refused, lists them and retries with the headers', async () => {
    // The wire as the client sends and hears it: each POST's method, Mcp-Param-Data and status.
    const wire: { method: string; data: string | null; status: number }[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      const headers = new Headers(init?.headers);
      wire.push({
        method: String(headers.get('mcp-method')),
        data: headers.get('mcp-param-data'),
        status: response.status,
      });
      return response;
    };
    const client = new Client(TASKS_CLIENT.clientInfo, {
      versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
    });
    await client.connect(new StreamableHTTPClientTransport(stack.gateway.url, { fetch: recording }));
    try {
      const result = await client.callTool({ name: TOOL, arguments: { difficulty: 1, data: 'first call' } });
      assert.ok(['completed', 'running'].includes(String(structured(result).status)));
      const calls = wire.filter((exchange) => exchange.method !== 'server/discover');
      assert.deepEqual(calls, [
        { method: 'tools/call', data: null, status: 400 },
        { method: 'tools/list', data: null, status: 200 },
        { method: 'tools/call', data: 'first call', status: 200 },
      ]);
    } finally {
      await client.close();
    }
  });

  test('the MCP SDK v2 client mirrors the arguments itself and is served, non-ASCII included', async () => {
    const client = await connectV2(stack.gateway.url, { tasks: false });
    try {
      await client.listTools();
      const result = await client.callTool({
        name: TOOL,
        arguments: { difficulty: 1, data: 'Grüße aus dem Header' },
      });
      assert.equal(structured(result).status, 'completed');
    } finally {
      await client.close();
    }
  });
});
