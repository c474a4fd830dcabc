// The package's Fastify plugin in a host's app, on a Temporal address nothing listens on, driven
// in-process with inject and over real HTTP: the host's quick tools (zod and JSON Schema) are listed
// beside the catalog's and answered inline with Temporal down, so a quick tool never reaches
// Temporal, let alone starts a workflow; their arguments are checked; a name the catalog serves is
// refused at registration; the host's own authentication names the caller; a quick tool's scopes are
// checked before its handler runs, which learns the caller's; with nobody signing in, a host app on
// every address serves this machine's loopback peers only, whatever the Host header says; the
// endpoint lives under the host's prefix; the probes are mounted only when asked for; catalog entries
// given as objects are served.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import * as z from 'zod/v4';
import {
  type CatalogEntry,
  loadGatewaySettings,
  type QuickTool,
  type QuickToolContext,
  temporalMcp,
} from '../gateway/index.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { nonLoopbackAddress, postFrom } from './support/machine-address.ts';
import { framedHeaders, framedRequest, PLAIN_CLIENT } from './support/mcp-http.ts';

const settings = await loadGatewaySettings({
  TEMPORAL_ADDRESS: '127.0.0.1:9',
  MCP_READY_TIMEOUT_MS: '300',
  MCP_TEMPORAL_TIMEOUT_MS: '500',
});

const echo: QuickTool = {
  name: 'echo',
  description: 'Says it back, with who asked.',
  inputSchema: z.object({ text: z.string().min(1) }),
  handler: (args, { principal }) => ({
    content: [{ type: 'text', text: String(args.text) }],
    structuredContent: { text: args.text, principal },
  }),
};

const add: QuickTool = {
  name: 'add',
  description: 'Adds two integers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'integer' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(Number(a) + Number(b)) }] }),
};

/** A host app with the plugin under /ai, its Temporal unreachable. */
async function host(options: Partial<Parameters<typeof temporalMcp>[1]> = {}): Promise<FastifyInstance> {
  const app = Fastify();
  app.get('/', async () => 'the host');
  await app.register(temporalMcp, {
    prefix: '/ai',
    settings,
    serverSecret: TEST_SERVER_SECRET,
    tools: [echo, add],
    ...options,
  });
  return app;
}

async function call(
  app: FastifyInstance,
  method: string,
  params: Record<string, unknown>,
  { headers = {}, framing = PLAIN_CLIENT } = {},
) {
  const response = await app.inject({
    method: 'POST',
    url: '/ai/mcp',
    headers: { ...framedHeaders(method, params), ...headers },
    payload: JSON.stringify(framedRequest(method, params, framing)),
  });
  return { status: response.statusCode, body: response.json() };
}

describe('quick tools beside the built-in catalog, Temporal unreachable', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await host();
  });
  after(() => app.close());

  test('tools/list: the quick tools beside the catalog tools, their zod schema as JSON Schema', async () => {
    const { body } = await call(app, 'tools/list', {});
    const tools = body.result.tools as { name: string; inputSchema: unknown; execution?: unknown }[];
    const names = tools.map((t) => t.name);
    for (const name of ['echo', 'add', 'start_mining', 'get_mining_result'])
      assert.ok(names.includes(name), name);
    const listed = tools.find((t) => t.name === 'echo') as { inputSchema: Record<string, unknown> };
    assert.equal(listed.inputSchema.type, 'object');
    assert.deepEqual(listed.inputSchema.required, ['text']);
  });

  test('a quick tool answers inline, without Temporal', async () => {
    const started = Date.now();
    const { body } = await call(app, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(body.result.structuredContent, { text: 'hi', principal: 'anonymous' });
    const sum = await call(app, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    assert.equal(sum.body.result.content[0].text, '5');
    // Temporal calls time out after 500 ms here: the answers did not wait for one.
    assert.ok(Date.now() - started < 500, `took ${Date.now() - started} ms`);
  });

  test('bad arguments are -32602 naming the field (zod and JSON Schema)', async () => {
    const zod = await call(app, 'tools/call', { name: 'echo', arguments: { text: '' } });
    assert.equal(zod.body.error.code, -32602);
    assert.match(zod.body.error.message, /text/);
    const json = await call(app, 'tools/call', { name: 'add', arguments: { a: 2, b: 'three' } });
    assert.equal(json.body.error.code, -32602);
    assert.match(json.body.error.message, /\bb\b/);
  });

  test("the endpoint is under the host's prefix; the host's routes are its own; no probes unless asked", async () => {
    assert.equal((await app.inject({ method: 'POST', url: '/mcp', payload: {} })).statusCode, 404);
    assert.equal((await app.inject({ url: '/' })).body, 'the host');
    assert.equal((await app.inject({ url: '/ai/readyz' })).statusCode, 404);
  });
});

describe('registration', () => {
  test('a quick tool named like a catalog tool or companion is refused when the app gets ready', async () => {
    for (const name of ['start_mining', 'get_mining_result']) {
      await assert.rejects(
        host({ tools: [{ ...echo, name }] }),
        new RegExp(`quick tool ${name}: the catalog already serves`),
      );
    }
    await assert.rejects(host({ tools: [echo, echo] }), /quick tool echo: registered twice/);
    await assert.rejects(
      host({ tools: [{ ...add, inputSchema: { type: 'string' } }] }),
      /quick tool add: inputSchema must be of type "object"/,
    );
  });

  test('catalog entries given as objects are the durable tools served; probes when asked', async () => {
    const report: CatalogEntry = {
      name: 'start_report',
      description: 'Builds a report.',
      workflow: 'buildReport',
      inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, additionalProperties: false },
    };
    const app = await host({ catalog: [report], probes: true });
    try {
      const { body } = await call(app, 'tools/list', {});
      const names = (body.result.tools as { name: string }[]).map((t) => t.name).sort();
      assert.deepEqual(names, ['add', 'cancel_report', 'echo', 'get_report_result', 'start_report']);
      assert.deepEqual((await app.inject({ url: '/ai/healthz' })).json(), { status: 'ok' });
      assert.equal((await app.inject({ url: '/ai/readyz' })).statusCode, 503);
    } finally {
      await app.close();
    }
  });
});

describe("the host's own authentication", () => {
  let app: FastifyInstance;
  before(async () => {
    app = await host({
      authenticate: (request) =>
        request.headers['x-user'] ? { principal: String(request.headers['x-user']) } : undefined,
    });
  });
  after(() => app.close());

  test('a caller it does not name is 401; the one it names is the principal the tools see', async () => {
    const refused = await call(app, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.equal(refused.status, 401);
    const { body } = await call(
      app,
      'tools/call',
      { name: 'echo', arguments: { text: 'hi' } },
      { headers: { 'x-user': 'carol' } },
    );
    assert.deepEqual(body.result.structuredContent, { text: 'hi', principal: 'carol' });
  });
});

describe("the codec endpoint under the host's authentication", () => {
  const codecEnv = {
    TEMPORAL_ADDRESS: '127.0.0.1:9',
    MCP_CODEC_KEYS: `k-1=${randomBytes(32).toString('base64')}`,
    MCP_CODEC_SERVER: 'true',
  };
  const byHeader = (request: { headers: Record<string, unknown> }) =>
    request.headers['x-user'] ? { principal: String(request.headers['x-user']) } : undefined;

  test('without MCP_CODEC_PRINCIPALS the plugin does not mount: every signed-in caller is no operator', async () => {
    const app = Fastify();
    const settings = await loadGatewaySettings(codecEnv);
    app.register(temporalMcp, {
      prefix: '/ai',
      settings,
      serverSecret: TEST_SERVER_SECRET,
      authenticate: byHeader,
    });
    await assert.rejects(async () => app.ready(), /MCP_CODEC_PRINCIPALS/);
    await app.close();
  });

  test('callers sign in as the host says: nobody 401, a principal not named 403, an operator decodes', async () => {
    const app = Fastify();
    await app.register(temporalMcp, {
      prefix: '/ai',
      settings: await loadGatewaySettings({ ...codecEnv, MCP_CODEC_PRINCIPALS: 'ops' }),
      serverSecret: TEST_SERVER_SECRET,
      authenticate: byHeader,
    });
    const decode = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/ai/codec/decode',
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify({ payloads: [] }),
      });
    assert.equal((await decode({})).statusCode, 401);
    const stranger = await decode({ 'x-user': 'carol' });
    assert.equal(stranger.statusCode, 403, stranger.body);
    assert.match(stranger.body, /principal_refused/);
    const operator = await decode({ 'x-user': 'ops' });
    assert.equal(operator.statusCode, 200, operator.body);
    assert.deepEqual(operator.json(), { payloads: [] });
    await app.close();
  });
});

/** A quick tool that counts its runs and keeps the context of the last. */
function countedTool(name: string, scopes?: string[]) {
  const runs: QuickToolContext[] = [];
  const tool: QuickTool = {
    name,
    description: 'Counts its calls.',
    inputSchema: { type: 'object', properties: {} },
    ...(scopes ? { scopes } : {}),
    handler: (_args, context) => {
      runs.push(context);
      return { content: [{ type: 'text', text: `run ${runs.length}` }] };
    },
  };
  return { tool, runs };
}

/** A tools/call of `name` as a 2026-07-28 client sends it, from `from` to the app at `url`. */
function callFrom(from: string, url: URL, name: string, headers: Record<string, string> = {}) {
  const params = { name, arguments: {} };
  const framed = framedRequest('tools/call', params, PLAIN_CLIENT);
  return postFrom(from, url, { ...framedHeaders('tools/call', params), ...headers }, framed);
}

describe("a quick tool's scopes, over HTTP, as the host's authentication names them", () => {
  const admin = countedTool('reset_cache', ['admin', 'audit']);
  const open = countedTool('whoami');
  let app: FastifyInstance;
  let url: URL;
  before(async () => {
    app = Fastify();
    await app.register(temporalMcp, {
      prefix: '/ai',
      settings,
      serverSecret: TEST_SERVER_SECRET,
      tools: [admin.tool, open.tool],
      // x-scopes: the caller's scopes, space-separated; no header: an identity without scopes.
      authenticate: (request) => {
        const scopes = request.headers['x-scopes'];
        return { principal: 'dana', ...(typeof scopes === 'string' ? { scopes: scopes.split(' ') } : {}) };
      },
    });
    url = new URL(`${await app.listen({ host: '127.0.0.1', port: 0 })}/ai/mcp`);
  });
  after(() => app.close());

  test('a caller lacking a scope is 403 insufficient_scope naming every scope, and the handler never runs', async () => {
    const refused = await callFrom('127.0.0.1', url, 'reset_cache', { 'x-scopes': 'read audit' });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    const error = refused.body.error as { code: number; message: string; data: Record<string, unknown> };
    assert.equal(error.data.reason, 'insufficient_scope');
    assert.deepEqual(error.data.requiredScopes, ['admin', 'audit']);
    assert.match(error.message, /tools\/call on reset_cache/);
    assert.match(
      String(refused.headers['www-authenticate']),
      /error="insufficient_scope", scope="admin audit"/,
    );
    assert.equal(admin.runs.length, 0);
    // A quick tool without scopes is the caller's to call with any.
    assert.equal((await callFrom('127.0.0.1', url, 'whoami', { 'x-scopes': 'read' })).status, 200);
    assert.deepEqual(open.runs.at(-1)?.scopes, ['read']);
  });

  test('a caller holding the scopes is served, and its handler learns them', async () => {
    const served = await callFrom('127.0.0.1', url, 'reset_cache', { 'x-scopes': 'read admin audit' });
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.equal(admin.runs.length, 1);
    assert.equal(admin.runs[0]?.principal, 'dana');
    assert.deepEqual(admin.runs[0]?.scopes, ['read', 'admin', 'audit']);
    // An identity without scopes holds every scope: served, and its handler is told none.
    assert.equal((await callFrom('127.0.0.1', url, 'reset_cache')).status, 200);
    assert.equal(admin.runs.length, 2);
    assert.equal(admin.runs[1]?.scopes, undefined);
  });

  test('bad scopes are refused at registration, naming the tool', async () => {
    await assert.rejects(
      host({ tools: [{ ...echo, scopes: [] }] }),
      /quick tool echo: scopes must be a non-empty array/,
    );
    await assert.rejects(
      host({ tools: [{ ...echo, scopes: ['two words'] }] }),
      /quick tool echo: scopes: "two words" is not a valid OAuth scope/,
    );
  });
});

describe('nobody signs in: a host app on every address serves loopback peers only, whatever Host says', () => {
  const other = nonLoopbackAddress();
  const skip = 'skip' in other ? other.skip : false;
  const counted = countedTool('ping_host');
  const codecEnv = {
    TEMPORAL_ADDRESS: '127.0.0.1:9',
    MCP_CODEC_KEYS: `k-1=${randomBytes(32).toString('base64')}`,
    MCP_CODEC_SERVER: 'true',
  };
  /** A host app with the plugin's defaults (no authenticate, no tokens) listening on `host`. */
  async function listening(host: string) {
    // A host behind a balancer trusts X-Forwarded-For for its own request.ip; the plugin does not.
    const app = Fastify({ trustProxy: true });
    await app.register(temporalMcp, {
      prefix: '/ai',
      settings: await loadGatewaySettings(codecEnv),
      serverSecret: TEST_SERVER_SECRET,
      tools: [counted.tool],
    });
    const address = await app.listen({ host, port: 0 });
    return { app, port: new URL(address).port };
  }
  after(() => {
    if (!('skip' in other)) other.release();
  });

  for (const bind of ['0.0.0.0', '::']) {
    test(`on ${bind}: another address of this machine refused (/mcp and /codec), 127.0.0.1 served`, {
      skip,
    }, async () => {
      if ('skip' in other) return;
      const { app, port } = await listening(bind);
      try {
        const before = counted.runs.length;
        const remote = new URL(`http://${other.address}:${port}/ai/mcp`);
        const spoofed = { host: 'localhost', 'x-forwarded-for': '127.0.0.1' };
        const refused = await callFrom(other.address, remote, 'ping_host', spoofed);
        assert.equal(
          refused.status,
          403,
          `from ${other.address} (${other.source}): ${JSON.stringify(refused.body)}`,
        );
        const error = refused.body.error as { message: string; data: Record<string, unknown> };
        assert.equal(error.data.reason, 'remote_peer_unauthenticated');
        assert.match(error.message, new RegExp(`${other.address.replaceAll('.', '\\.')} is not one`));
        assert.match(error.message, /MCP_AUTH_TOKENS .*MCP_OAUTH_ISSUER .*authenticate option/);
        assert.equal(counted.runs.length, before, 'the handler ran for a refused caller');
        const codec = new URL(`http://${other.address}:${port}/ai/codec/decode`);
        const decodeHeaders = { ...spoofed, 'content-type': 'application/json' };
        const codecRefused = await postFrom(other.address, codec, decodeHeaders, { payloads: [] });
        assert.equal(codecRefused.status, 403);
        assert.equal(
          (codecRefused.body.error as { data: { reason: string } }).data.reason,
          'remote_peer_unauthenticated',
        );

        const local = new URL(`http://127.0.0.1:${port}/ai/mcp`);
        const served = await callFrom('127.0.0.1', local, 'ping_host', { host: 'localhost' });
        assert.equal(served.status, 200, JSON.stringify(served.body));
        assert.equal(counted.runs.length, before + 1);
        assert.equal(counted.runs.at(-1)?.principal, 'anonymous');
        const decoded = await postFrom(
          '127.0.0.1',
          new URL(`http://127.0.0.1:${port}/ai/codec/decode`),
          decodeHeaders,
          {
            payloads: [],
          },
        );
        assert.deepEqual([decoded.status, decoded.body], [200, { payloads: [] }]);
      } finally {
        await app.close();
      }
    });
  }
});
