// The gateway as an OAuth 2.1 resource server, against a real authorization server process
// (oidc-provider: client credentials, resource indicators, JWT access tokens), a real dev server and
// worker, over real HTTP. The SDK client connects through its own OAuth support (discovery from the
// 401, a token for this resource, step-up on 403). Every bad token gets its documented answer and
// starts nothing; tasks follow the subject across tokens; the key set endpoint down answers a clear
// error within the deadline; a rotated key is taken up without a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { base64url, type JWTPayload, SignJWT } from 'jose';
import { inputRequestId } from '../gateway/mcp/legacy-task-input.ts';
import { loadSettings } from '../gateway/settings/index.ts';
import { KEY_WORKFLOW_TYPE } from '../gateway/temporal/keyed-start.ts';
import { freePort } from '../launcher/free-port.ts';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { structured } from './support/mcp-clients.ts';
import {
  framedHeaders,
  framedRequest,
  PLAIN_CLIENT,
  PROTOCOL_VERSION,
  rpc,
  rpcResult,
  TASKS_CLIENT,
} from './support/mcp-http.ts';
import {
  type AsClient,
  type SigningKey,
  signingKey,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from './support/oauth-server.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const ECHO_WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/slow-echo.ts', import.meta.url));
const TASK_QUEUE = `gateway-oauth-${process.pid}`;
const OTHER_RESOURCE = 'https://other.example/mcp';
const COOLDOWN_MS = 300;
const HTTP_TIMEOUT_MS = 1_000;

const AGENT: AsClient = { id: 'agent', secret: 'agent-secret-5f2c9a1e7b3d', scope: 'mcp:tools echo:run' };
const PEER: AsClient = { id: 'peer', secret: 'peer-secret-0d8e6b4a2c1f', scope: 'mcp:tools echo:run' };
const LIMITED: AsClient = { id: 'limited', secret: 'limited-secret-7a1b2c3d4e', scope: 'mcp:tools' };
const OUTSIDER: AsClient = { id: 'outsider', secret: 'outsider-secret-1c2d3e4f5a', scope: 'echo:run' };
const STATIC_TOKEN = 'ops-static-token-9a8b7c6d5e4f3a2b';

let temporal: TestTemporal;
let authServer: TestAuthorizationServer;
let gateway: TestGateway;
let resource: string;
let keyA: SigningKey;
let echoWorker: Worker;
let echoRun: Promise<void>;
let echoConnection: NativeConnection;
let catalogDir: string;
const gateways: TestGateway[] = [];

/** Two tools on the same fixture workflow: one needs the scope echo:run, one needs none. */
function writeCatalog(): string {
  catalogDir = mkdtempSync(join(tmpdir(), 'oauth-catalog-'));
  const file = join(catalogDir, 'tools.json');
  const inputSchema = {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 100 },
      ms: { type: 'integer', minimum: 0, maximum: 600_000, default: 0 },
    },
    required: ['text'],
    additionalProperties: false,
  };
  const tool = { workflow: 'slowEcho', taskQueue: TASK_QUEUE, waitBudgetMs: 2_000, inputSchema };
  const tools = [
    { ...tool, name: 'echo_guarded', description: 'Echoes text; needs echo:run.', scopes: ['echo:run'] },
    { ...tool, name: 'echo_open', description: 'Echoes text.' },
  ];
  writeFileSync(file, JSON.stringify({ tools }));
  return file;
}

before(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  keyA = await signingKey('key-a');
  temporal = await startTestTemporal();
  [authServer, echoConnection] = await Promise.all([
    startAuthorizationServer({
      keys: [keyA],
      clients: [AGENT, PEER, LIMITED, OUTSIDER],
      resources: [resource, OTHER_RESOURCE],
      scope: 'mcp:tools echo:run',
      ttlSeconds: 300,
    }),
    NativeConnection.connect({ address: temporal.address }),
  ]);
  echoWorker = await Worker.create({
    connection: echoConnection,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: ECHO_WORKFLOWS,
  });
  echoRun = echoWorker.run();
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    port,
    env: {
      MCP_TOOLS_FILE: writeCatalog(),
      MCP_AUTH_TOKENS: `ops:${STATIC_TOKEN}`,
      MCP_OAUTH_ISSUER: authServer.issuer,
      MCP_OAUTH_AUDIENCE: resource,
      MCP_OAUTH_REQUIRED_SCOPES: 'mcp:tools',
      MCP_OAUTH_JWKS_COOLDOWN_MS: String(COOLDOWN_MS),
      MCP_OAUTH_HTTP_TIMEOUT_MS: String(HTTP_TIMEOUT_MS),
    },
  });
  gateways.push(gateway);
});

after(async () => {
  for (const g of gateways) await g.close().catch(() => {});
  echoWorker?.shutdown();
  await echoRun?.catch(() => {});
  await echoConnection?.close();
  await authServer?.stop();
  await temporal?.close();
  if (catalogDir) rmSync(catalogDir, { recursive: true, force: true });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface Answer {
  status: number;
  challenge: string;
  body: {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
  headers: Headers;
}

/** One JSON-RPC request over plain HTTP, framed as 2026-07-28, with the HTTP answer kept whole. */
async function post(
  headers: Record<string, string>,
  method: string,
  params: Record<string, unknown>,
  to: TestGateway = gateway,
): Promise<Answer> {
  const response = await fetch(to.url, {
    method: 'POST',
    headers: { ...framedHeaders(method, params), ...headers },
    body: JSON.stringify(framedRequest(method, params, PLAIN_CLIENT, 7)),
  });
  const text = await response.text();
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate') ?? '',
    body: text ? JSON.parse(text) : {},
    headers: response.headers,
  };
}

const echo = (name: string, text: string, ms = 0) => ({ name, arguments: { text, ms } });

/** Every tool run in the namespace (not the cap's slot holders), from Temporal's visibility store. */
async function allRuns(): Promise<Set<string>> {
  const ids = new Set<string>();
  const query = `WorkflowType != "${KEY_WORKFLOW_TYPE}"`;
  for await (const run of temporal.client.workflow.list({ query })) ids.add(run.workflowId);
  return ids;
}

/** The runs started since `before`, once the `control` runs a test started are listed. */
function runsSince(before: Set<string>, control = 1): Promise<string[]> {
  return eventually(
    async () => {
      const fresh = [...(await allRuns())].filter((id) => !before.has(id));
      return fresh.length >= control ? fresh : undefined;
    },
    10_000,
    `the ${control} control run(s) to be listed`,
  );
}

const now = () => Math.floor(Date.now() / 1000);

/** A token signed here, by default as the authorization server would sign a good one. */
function handMade(
  claims: JWTPayload,
  options: { key?: SigningKey; kid?: string; typ?: string | null } = {},
): Promise<string> {
  const key = options.key ?? keyA;
  const typ = options.typ === undefined ? 'at+jwt' : options.typ;
  return new SignJWT({ scope: 'mcp:tools echo:run', client_id: 'agent', ...claims })
    .setProtectedHeader({ alg: 'ES256', ...(typ === null ? {} : { typ }), kid: options.kid ?? key.kid })
    .sign(key.privateKey);
}

const goodClaims = (): JWTPayload => ({
  iss: authServer.issuer,
  aud: resource,
  sub: 'agent',
  iat: now(),
  exp: now() + 300,
});

/** A JWS over `claims` with a header of our choosing and a given signature part. */
function forged(header: Record<string, unknown>, claims: JWTPayload, signature: string): string {
  const part = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${part(header)}.${part(claims)}.${signature}`;
}

async function hs256WithPublicKey(claims: JWTPayload): Promise<string> {
  const secret = new TextEncoder().encode(JSON.stringify(keyA.publicJwk));
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: keyA.kid }).sign(secret);
}

describe('discovery', () => {
  test('RFC 9728 metadata at the bare and the /mcp well-known paths', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(new URL(path, gateway.origin));
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await response.json(), {
        resource,
        authorization_servers: [authServer.issuer],
        scopes_supported: ['mcp:tools', 'echo:run'],
        bearer_methods_supported: ['header'],
        resource_name: 'Temporal MCP gateway',
      });
    }
  });

  test('no token: 401 pointing at the metadata, with the scope the gateway requires', async () => {
    const answer = await post({}, 'tools/call', echo('echo_open', 'no token'));
    assert.equal(answer.status, 401);
    assert.equal(
      answer.challenge,
      `Bearer realm="mcp", resource_metadata="${gateway.origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
    );
    assert.equal(answer.body.error?.code, -32001);
    assert.match(answer.body.error?.message ?? '', /^Unauthorized: a bearer token is required/);
  });
});

describe('a client with client credentials', () => {
  test('the SDK client finds the authorization server from the 401, gets a token for this resource, steps up for a scoped tool', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: AGENT.id,
      clientSecret: AGENT.secret,
      expectedIssuer: authServer.issuer,
    });
    const client = new Client(
      { name: 'oauth-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } },
    );
    await client.connect(new StreamableHTTPClientTransport(gateway.url, { authProvider: provider }));
    try {
      // The first token carries what the 401 asked for.
      assert.equal(provider.tokens()?.scope, 'mcp:tools');
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'echo_guarded'));
      const open = await client.callTool(echo('echo_open', 'hello'));
      assert.equal((structured(open).result as { echo: string }).echo, 'hello');
      // echo_guarded answers 403 insufficient_scope; the client asks for the union and retries.
      const guarded = await client.callTool(echo('echo_guarded', 'stepped up'));
      assert.equal((structured(guarded).result as { echo: string }).echo, 'stepped up');
      assert.deepEqual(provider.tokens()?.scope?.split(' ').sort(), ['echo:run', 'mcp:tools']);
    } finally {
      await client.close();
    }
  });

  test('static tokens keep working beside OAuth, and may use every tool', async () => {
    const answer = await post(bearer(STATIC_TOKEN), 'tools/call', echo('echo_guarded', 'static'));
    assert.equal(answer.status, 200);
    assert.equal((structured(answer.body.result).result as { echo: string }).echo, 'static');
  });
});

describe('scopes', () => {
  test('a tool that needs a scope the token lacks: 403 insufficient_scope naming every scope needed; nothing started', async () => {
    const token = await authServer.token(LIMITED, resource, 'mcp:tools');
    const runsBefore = await allRuns();
    const expected =
      /^Bearer realm="mcp", error="insufficient_scope", error_description="[^"]+", scope="mcp:tools echo:run", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/;
    for (const [method, params] of [
      ['tools/call', echo('echo_guarded', 'refused')],
      [
        'tools/call',
        { name: 'get_echo_guarded_result', arguments: { workflow_id: `echo_guarded-${'A'.repeat(32)}` } },
      ],
      ['tasks/get', { taskId: `echo_guarded-${'A'.repeat(32)}` }],
      // Watching a task needs what reading it needs.
      [
        'subscriptions/listen',
        { notifications: { taskIds: [`echo_open-${'B'.repeat(32)}`, `echo_guarded-${'A'.repeat(32)}`] } },
      ],
    ] as const) {
      const answer = await post(bearer(token), method, params);
      assert.equal(answer.status, 403, `${method} ${JSON.stringify(params)}`);
      assert.match(answer.challenge, expected);
      assert.equal(answer.body.error?.code, -32003);
      assert.equal(answer.body.id, 7);
      assert.deepEqual(answer.body.error?.data, {
        reason: 'insufficient_scope',
        requiredScopes: ['mcp:tools', 'echo:run'],
      });
    }
    // The same token may call a tool that names no scope.
    const open = await post(bearer(token), 'tools/call', echo('echo_open', 'allowed'));
    assert.equal(open.status, 200);
    const started = await runsSince(runsBefore);
    assert.equal(started.length, 1, 'only the echo_open call started a run');
    assert.match(started[0] ?? '', /^echo_open-/);
  });

  test('a token without a scope the gateway requires: 403 for every request', async () => {
    const token = await authServer.token(OUTSIDER, resource, 'echo:run');
    const answer = await post(bearer(token), 'tools/list', {});
    assert.equal(answer.status, 403);
    assert.match(answer.challenge, /error="insufficient_scope".*scope="mcp:tools"/);
    assert.equal(answer.body.error?.code, -32003);
  });
});

describe('bad tokens', () => {
  test('each gets its documented answer, and none starts anything', async () => {
    const runsBefore = await allRuns();
    const keyX = await signingKey('key-x');
    const cases: [string, Promise<string> | string, RegExp][] = [
      ['expired', handMade({ ...goodClaims(), exp: now() - 120 }), /the token has expired/],
      ['not yet valid', handMade({ ...goodClaims(), nbf: now() + 120 }), /not valid yet/],
      [
        'wrong audience',
        handMade({ ...goodClaims(), aud: 'http://127.0.0.1:1/mcp' }),
        /not issued for this resource/,
      ],
      [
        'wrong issuer',
        handMade({ ...goodClaims(), iss: 'https://issuer.example' }),
        /not issued by http:\/\/127/,
      ],
      ['bad signature', handMade(goodClaims(), { key: keyX, kid: keyA.kid }), /signature is not valid/],
      ['alg none', forged({ alg: 'none', typ: 'at+jwt' }, goodClaims(), ''), /accepted algorithm/],
      ['HS256 keyed with the public key', hs256WithPublicKey(goodClaims()), /accepted algorithm/],
      ['unknown kid', handMade(goodClaims(), { key: keyX }), /signing key \(kid\)/],
      // RFC 9068: a JWT of the issuer for this audience is an access token only if its header says so.
      ['no typ', handMade(goodClaims(), { typ: null }), /not a JWT access token \(its header typ/],
      ['an ID token (typ JWT)', handMade(goodClaims(), { typ: 'JWT' }), /not a JWT access token/],
      [
        'for another resource',
        authServer.token(AGENT, OTHER_RESOURCE, 'mcp:tools'),
        /not issued for this resource/,
      ],
      ['no subject', handMade({ ...goodClaims(), sub: undefined }), /no "sub" claim/],
      ['no expiry', handMade({ ...goodClaims(), exp: undefined }), /"exp" claim/],
      ['not a JWT', 'not-a-jwt-nor-a-static-token', /not a well-formed JWT/],
    ];
    for (const [name, pending, reason] of cases) {
      const answer = await post(bearer(await pending), 'tools/call', echo('echo_open', `bad token: ${name}`));
      assert.equal(answer.status, 401, name);
      assert.match(answer.challenge, /^Bearer realm="mcp", error="invalid_token", error_description="/, name);
      assert.match(
        answer.challenge,
        /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      assert.equal(answer.body.error?.code, -32001, name);
      assert.match(answer.body.error?.message ?? '', reason, name);
    }
    // Within the allowed clock skew (30 s by default) a token just past its expiry still passes.
    const late = await post(
      bearer(await handMade({ ...goodClaims(), exp: now() - 10 })),
      'tools/call',
      echo('echo_open', 'within skew'),
    );
    assert.equal(late.status, 200);
    // The media type form of the access token's typ is the same type (RFC 9068 section 2.1).
    const mediaType = await post(
      bearer(await handMade(goodClaims(), { typ: 'application/AT+JWT' })),
      'tools/call',
      echo('echo_open', 'typ as a media type'),
    );
    assert.equal(mediaType.status, 200);
    const started = await runsSince(runsBefore, 2);
    assert.equal(started.length, 2, `only the two good tokens started a run: ${started}`);
  });
});

describe('principal', () => {
  test("a task started with one token is the subject's with a refreshed token; another subject's reads as unknown", async () => {
    const first = await authServer.token(AGENT, resource, 'mcp:tools echo:run');
    const created = await rpcResult(
      gateway.url,
      'tools/call',
      echo('echo_guarded', 'long', 60_000),
      TASKS_CLIENT,
      bearer(first),
    );
    assert.equal(created.resultType, 'task');
    const taskId = String(created.taskId);
    const description = await temporal.client.workflow.getHandle(taskId).describe();
    // Qualified by its issuer: no static principal can be named the same.
    assert.equal(description.memo?.principal, `${authServer.issuer}#agent`);

    const refreshed = await authServer.token(AGENT, resource, 'mcp:tools echo:run');
    assert.notEqual(refreshed, first);
    const task = await rpcResult(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, bearer(refreshed));
    assert.equal(task.status, 'working');

    for (const stranger of [
      bearer(await authServer.token(PEER, resource, 'mcp:tools echo:run')),
      bearer(STATIC_TOKEN),
    ]) {
      const answer = await rpc(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, stranger);
      assert.equal(answer.error?.code, -32602);
      assert.match(answer.error?.message ?? '', /Task not found/);
    }
    // The refreshed token may end it, too.
    await rpcResult(gateway.url, 'tasks/cancel', { taskId }, TASKS_CLIENT, bearer(refreshed));
  });
});

describe('principals that cannot collide', () => {
  test('a token whose subject is named like a static principal is not that principal; an alias makes it so', async () => {
    // A run of the static principal "ops".
    const created = await rpcResult(
      gateway.url,
      'tools/call',
      echo('echo_open', 'ops run', 60_000),
      TASKS_CLIENT,
      bearer(STATIC_TOKEN),
    );
    const taskId = String(created.taskId);
    const opsNamed = await handMade({ ...goodClaims(), sub: 'ops' });
    const answer = await rpc(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, bearer(opsNamed));
    assert.equal(answer.error?.code, -32602, 'a subject "ops" reads ops\'s task as unknown');
    assert.match(answer.error?.message ?? '', /Task not found/);

    const aliased = await startGateway({
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
      env: {
        MCP_TOOLS_FILE: writeCatalog(),
        MCP_AUTH_TOKENS: `ops:${STATIC_TOKEN}`,
        MCP_OAUTH_ISSUER: authServer.issuer,
        MCP_OAUTH_AUDIENCE: resource,
        MCP_OAUTH_PRINCIPAL_ALIASES: 'ops-in-idp=ops',
        MCP_AUTH_TOKEN_SCOPES: 'ops=mcp:tools',
      },
    });
    gateways.push(aliased);
    const moved = await handMade({ ...goodClaims(), aud: resource, sub: 'ops-in-idp' });
    // The same server secret: the task id is as much ops's on the second gateway.
    const task = await rpcResult(aliased.url, 'tasks/get', { taskId }, TASKS_CLIENT, bearer(moved));
    assert.equal(task.status, 'working');
    await rpcResult(gateway.url, 'tasks/cancel', { taskId }, TASKS_CLIENT, bearer(STATIC_TOKEN));
    // Static principals hold the scopes MCP_AUTH_TOKEN_SCOPES gives them, checked like a token's.
    const guarded = await post(
      bearer(STATIC_TOKEN),
      'tools/call',
      echo('echo_guarded', 'static, limited'),
      aliased,
    );
    assert.equal(guarded.status, 403, JSON.stringify(guarded.body));
    const open = await post(bearer(STATIC_TOKEN), 'tools/call', echo('echo_open', 'static, open'), aliased);
    assert.equal(open.status, 200, JSON.stringify(open.body));
  });

  test('aliases must name a static principal', async () => {
    await assert.rejects(
      loadSettings({
        MCP_OAUTH_ISSUER: 'https://idp.example',
        MCP_OAUTH_AUDIENCE: 'https://gw.example/mcp',
        MCP_OAUTH_PRINCIPAL_ALIASES: 'someone=https://idp.example#x',
      }),
      /MCP_OAUTH_PRINCIPAL_ALIASES: .* valid principal name/,
    );
  });
});

describe('the key set', () => {
  test('a rotated key is taken up without a restart; a burst of unknown kids fetches the key set once', async () => {
    const keyB = await signingKey('key-b');
    await authServer.setKeys([keyB, keyA]);
    const before = (await authServer.requests())['/jwks'] ?? 0;
    await delay(COOLDOWN_MS); // the gateway fetched the key set within the cooldown before: let it pass
    const token = await authServer.token(AGENT, resource, 'mcp:tools');
    const answer = await post(bearer(token), 'tools/call', echo('echo_open', 'rotated'));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const afterRotation = (await authServer.requests())['/jwks'] ?? 0;
    assert.equal(afterRotation, before + 1, 'one fetch for the new key');
    // Tokens signed with the old key, still published, keep working.
    assert.equal((await post(bearer(await handMade(goodClaims())), 'tools/list', {})).status, 200);

    const strangers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) =>
        handMade(goodClaims(), { key: await signingKey(`stranger-${i}`) }),
      ),
    );
    await delay(COOLDOWN_MS);
    const answers = await Promise.all(strangers.map((t) => post(bearer(t), 'tools/list', {})));
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([401]));
    const afterBurst = (await authServer.requests())['/jwks'] ?? 0;
    assert.ok(
      afterBurst - afterRotation <= 1,
      `${afterBurst - afterRotation} key set fetches for 20 unknown kids`,
    );
  });

  test('the key set endpoint down: a clear 503 within the deadline, never a hang; known keys keep working; back when it is', async () => {
    await delay(COOLDOWN_MS);
    const unknownKid = await handMade(goodClaims(), { key: await signingKey('key-while-down') });
    for (const mode of ['hang', 'error'] as const) {
      await authServer.setJwksMode(mode);
      const started = performance.now();
      const answer = await post(bearer(unknownKid), 'tools/call', echo('echo_open', `jwks ${mode}`));
      const took = performance.now() - started;
      assert.equal(answer.status, 503, mode);
      assert.ok(took < HTTP_TIMEOUT_MS + 500, `${mode}: answered in ${took.toFixed(0)} ms`);
      assert.equal(answer.headers.get('retry-after'), '5');
      assert.equal(answer.body.error?.code, -32603);
      assert.equal(answer.body.error?.data?.reason, 'authorization_server_unavailable');
      assert.match(
        answer.body.error?.message ?? '',
        mode === 'hang' ? /key set .* no answer within 1000 ms/ : /key set .* answered HTTP 503/,
      );
      // Right after a failure the key set is not asked again: the same answer, at once.
      const fetches = (await authServer.requests())['/jwks'] ?? 0;
      const again = performance.now();
      assert.equal((await post(bearer(unknownKid), 'tools/list', {})).status, 503);
      assert.ok(performance.now() - again < 200);
      assert.equal((await authServer.requests())['/jwks'] ?? 0, fetches);
      // A token signed with a key already known needs no fetch.
      assert.equal((await post(bearer(await handMade(goodClaims())), 'tools/list', {})).status, 200);
      await delay(COOLDOWN_MS);
    }
    await authServer.setJwksMode('ok');
    const back = await post(bearer(unknownKid), 'tools/list', {});
    assert.equal(back.status, 401, 'answered again: the kid is simply unknown');
    assert.match(back.challenge, /signing key \(kid\)/);
  });

  test('an issuer that does not answer at all: 503 naming the discovery document, quickly', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const lost = await startGateway({
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
      env: {
        MCP_OAUTH_ISSUER: nowhere,
        MCP_OAUTH_AUDIENCE: 'http://127.0.0.1:1/mcp',
        MCP_OAUTH_HTTP_TIMEOUT_MS: String(HTTP_TIMEOUT_MS),
      },
    });
    gateways.push(lost);
    const started = performance.now();
    const response = await fetch(lost.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...bearer(await handMade(goodClaims())),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(response.status, 503);
    assert.ok(performance.now() - started < HTTP_TIMEOUT_MS);
    const body = (await response.json()) as { error: { message: string } };
    assert.match(body.error.message, /discovery document .*well-known.* could not be read: ECONNREFUSED/);
  });
});

describe('rights on every path', () => {
  /** A 2025-11-25 message as that revision's clients send it (no per-request _meta). */
  async function postLegacy(headers: Record<string, string>, message: Record<string, unknown>) {
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
    const text = await response.text();
    return { status: response.status, text };
  }

  /** Every request method of the 2025-11-25 schema, with the 2026-07-28 revision's and the Tasks extension's additions. */
  function everyMethod(): string[] {
    const legacy = ClientRequestSchema.options.map((option) => option.shape.method.value as string);
    return [...new Set([...legacy, 'server/discover', 'subscriptions/listen', 'tasks/update'])];
  }

  test("every method of both revisions, every companion and an input answer refuse a token of the task's subject without the tool's scope; listings leave its tasks out", async () => {
    const full = await authServer.token(AGENT, resource, 'mcp:tools echo:run');
    const narrow = await authServer.token(AGENT, resource, 'mcp:tools');
    const started = await post(bearer(full), 'tools/call', echo('echo_guarded', 'held', 120_000));
    const taskId = (started.body.result?.structuredContent as { workflow_id?: string } | undefined)
      ?.workflow_id;
    assert.ok(taskId, JSON.stringify(started.body).slice(0, 300));
    const artifact = `artifact://${taskId}/${'a'.repeat(24)}`;
    // The methods that touch the tool or its runs, each as its revision sends it.
    const modern: [string, Record<string, unknown>][] = [
      ['tools/call', echo('echo_guarded', 'refused')],
      ['tools/call', { name: 'get_echo_guarded_result', arguments: { workflow_id: taskId } }],
      ['tools/call', { name: 'cancel_echo_guarded', arguments: { workflow_id: taskId } }],
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: { approve: { action: 'accept' } } }],
      ['tasks/cancel', { taskId }],
      ['subscriptions/listen', { notifications: { taskIds: [taskId] } }],
      ['resources/read', { uri: artifact }],
    ];
    const legacy: Record<string, unknown>[] = [
      {
        id: 1,
        method: 'tools/call',
        params: { name: 'get_echo_guarded_result', arguments: { workflow_id: taskId } },
      },
      { id: 2, method: 'tasks/get', params: { taskId } },
      { id: 3, method: 'tasks/result', params: { taskId } },
      { id: 4, method: 'tasks/cancel', params: { taskId } },
      { id: 5, method: 'resources/read', params: { uri: artifact } },
      // The answer to an input request of the task (its id names the task).
      { id: inputRequestId(taskId, 'approve'), result: { action: 'accept', content: { approve: true } } },
      { id: inputRequestId(taskId, 'approve'), error: { code: -1, message: 'cannot answer' } },
    ];
    for (const [method, params] of modern) {
      const answer = await post(bearer(narrow), method, params);
      assert.equal(answer.status, 403, `${method} ${JSON.stringify(params)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error?.data?.reason, 'insufficient_scope', method);
    }
    for (const message of legacy) {
      const answer = await postLegacy(bearer(narrow), message);
      assert.equal(answer.status, 403, `2025-11-25 ${JSON.stringify(message)}: ${answer.text.slice(0, 200)}`);
      assert.match(answer.text, /insufficient_scope/);
    }
    // Every method the server serves is either one of those or touches no tool; a listing keeps
    // the tasks of covered tools only. A method served later without a place here fails this test.
    const touching = new Set([...modern.map(([method]) => method), ...legacy.map((m) => m.method)]);
    const listings = new Set(['tasks/list', 'resources/list']);
    const noTool = new Set([
      'ping',
      'initialize',
      'server/discover',
      'tools/list',
      'resources/templates/list',
    ]);
    for (const method of everyMethod()) {
      if (touching.has(method) || listings.has(method) || noTool.has(method)) continue;
      const answer = await post(bearer(narrow), method, {});
      assert.equal(
        answer.body.error?.code,
        -32601,
        `${method} is served, yet no rights check of it is tested here`,
      );
    }
    const listed = async (token: string) => {
      const answer = await postLegacy(bearer(token), { id: 9, method: 'tasks/list', params: {} });
      return answer.text.includes(taskId);
    };
    assert.equal(
      await listed(narrow),
      false,
      'tasks/list leaves out the tasks of a tool the token does not cover',
    );
    assert.equal(
      await eventually(async () => ((await listed(full)) ? true : undefined), 10_000, 'the task listed'),
      true,
    );
    // Nothing the narrow token sent reached the run: still running; the full token ends it.
    const now = await post(bearer(full), 'tools/call', {
      name: 'get_echo_guarded_result',
      arguments: { workflow_id: taskId },
    });
    assert.equal((now.body.result?.structuredContent as { status?: string } | undefined)?.status, 'running');
    const cancelled = await post(bearer(full), 'tools/call', {
      name: 'cancel_echo_guarded',
      arguments: { workflow_id: taskId },
    });
    assert.equal(cancelled.status, 200);
  });
});
