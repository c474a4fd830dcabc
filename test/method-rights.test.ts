// Rights generated from the method table (gateway/mcp/methods.ts): every declared method of each
// revision it is served to, every companion role and a 2025-11-25 input answer, in each way of
// signing in — static tokens with scopes, OAuth access tokens from a real authorization server, and
// an embedding host's own `authenticate` — sent by the task's owner, by another principal, and by
// a caller lacking the tool's scope, over real HTTP to the plugin on a real dev server with a worker;
// and a quick tool's scopes in each of those ways.
// A method added to the table without a request here fails; a method served without a declaration
// fails (every other method of both revisions must answer -32601).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import Fastify, { type FastifyInstance } from 'fastify';
import { type CatalogEntry, loadGatewaySettings, type QuickTool, temporalMcp } from '../gateway/index.ts';
import { inputRequestId } from '../gateway/mcp/legacy-task-input.ts';
import { COMPANIONS, type Era, INPUT_ANSWER, METHODS } from '../gateway/mcp/methods.ts';
import { freePort } from '../launcher/free-port.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { framedHeaders, framedRequest, TASKS_CLIENT } from './support/mcp-http.ts';
import {
  type AsClient,
  signingKey,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from './support/oauth-server.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

const ECHO_WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/slow-echo.ts', import.meta.url));
const TASK_QUEUE = `method-rights-${process.pid}`;
const SCOPE = 'echo:run';
const REQUIRED = 'mcp:tools';

const inputSchema = {
  type: 'object',
  properties: { text: { type: 'string' }, ms: { type: 'integer', minimum: 0 } },
  required: ['text', 'ms'],
  additionalProperties: false,
};
/** One guarded tool with every companion role: result, cancel, respond (it takes input) and list. */
const GUARDED: CatalogEntry = {
  name: 'echo_guarded',
  description: 'Echoes text after a while; needs echo:run.',
  workflow: 'slowEcho',
  taskQueue: TASK_QUEUE,
  waitBudgetMs: 200,
  inputSchema,
  scopes: [SCOPE],
  inputSignal: 'input',
  companions: { list: 'list_echo_guarded' },
};
const COMPANION_NAMES: Record<keyof typeof COMPANIONS, string> = {
  result: 'get_echo_guarded_result',
  cancel: 'cancel_echo_guarded',
  respond: 'respond_to_echo_guarded',
  list: 'list_echo_guarded',
};

/** A quick tool needing the guarded tool's scope, its runs kept: who called, holding what. */
const quickRuns: { principal: string; scopes: readonly string[] | undefined }[] = [];
const QUICK: QuickTool = {
  name: 'quick_guarded',
  description: 'Answers inline; needs echo:run.',
  inputSchema: { type: 'object', properties: {} },
  scopes: [SCOPE],
  handler: (_args, { principal, scopes }) => {
    quickRuns.push({ principal, scopes });
    return { content: [{ type: 'text', text: 'done' }] };
  },
};

type Who = 'owner' | 'other' | 'unscoped';
/** One way of signing in: the headers that make each caller. */
interface SignIn {
  name: string;
  url: URL;
  headers: Record<Who, Record<string, string>>;
}

let temporal: TestTemporal;
let authServer: TestAuthorizationServer;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
const apps: FastifyInstance[] = [];
const signIns: SignIn[] = [];

async function gateway(env: Record<string, string>, port: number, extra: object = {}): Promise<URL> {
  const settings = await loadGatewaySettings({
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    ...env,
  });
  const app = Fastify();
  await app.register(temporalMcp, {
    settings,
    serverSecret: TEST_SERVER_SECRET,
    catalog: [GUARDED],
    tools: [QUICK],
    ...extra,
  });
  await app.listen({ host: '127.0.0.1', port });
  apps.push(app);
  return new URL(`http://127.0.0.1:${port}/mcp`);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

before(async () => {
  temporal = await startTestTemporal();
  connection = await NativeConnection.connect({ address: temporal.address });
  worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: ECHO_WORKFLOWS,
  });
  running = worker.run();
  const tokens = {
    alice: `alice-${'a'.repeat(24)}`,
    bob: `bob-${'b'.repeat(24)}`,
    carol: `carol-${'c'.repeat(24)}`,
  };
  const staticUrl = await gateway(
    {
      MCP_AUTH_TOKENS: Object.entries(tokens)
        .map(([who, token]) => `${who}:${token}`)
        .join(','),
      MCP_AUTH_TOKEN_SCOPES: `alice=${SCOPE};bob=${SCOPE};carol=other`,
    },
    await freePort(),
  );
  signIns.push({
    name: 'static tokens',
    url: staticUrl,
    headers: { owner: bearer(tokens.alice), other: bearer(tokens.bob), unscoped: bearer(tokens.carol) },
  });

  const oauthPort = await freePort();
  const resource = `http://127.0.0.1:${oauthPort}/mcp`;
  const clients: Record<Who, AsClient> = {
    owner: { id: 'alice', secret: 'alice-secret-5f2c9a1e7b3d', scope: `${REQUIRED} ${SCOPE}` },
    other: { id: 'bob', secret: 'bob-secret-0d8e6b4a2c1f', scope: `${REQUIRED} ${SCOPE}` },
    unscoped: { id: 'carol', secret: 'carol-secret-7a1b2c3d4e', scope: REQUIRED },
  };
  authServer = await startAuthorizationServer({
    keys: [await signingKey('key-a')],
    clients: Object.values(clients),
    resources: [resource],
    scope: `${REQUIRED} ${SCOPE}`,
    ttlSeconds: 600,
  });
  const oauthUrl = await gateway(
    {
      MCP_OAUTH_ISSUER: authServer.issuer,
      MCP_OAUTH_AUDIENCE: resource,
      MCP_OAUTH_REQUIRED_SCOPES: REQUIRED,
    },
    oauthPort,
  );
  const token = (who: Who) => authServer.token(clients[who], resource, clients[who].scope);
  signIns.push({
    name: 'OAuth',
    url: oauthUrl,
    headers: {
      owner: bearer(await token('owner')),
      other: bearer(await token('other')),
      unscoped: bearer(await token('unscoped')),
    },
  });

  // The host's own sign-in: a header names the user, its directory their scopes.
  const directory: Record<string, string[]> = { alice: [SCOPE], bob: [SCOPE], carol: ['other'] };
  const hostUrl = await gateway({}, await freePort(), {
    authenticate: (request: { headers: Record<string, unknown> }) => {
      const user = String(request.headers['x-user'] ?? '');
      return directory[user] ? { principal: user, scopes: directory[user] } : undefined;
    },
  });
  signIns.push({
    name: "the host's authenticate",
    url: hostUrl,
    headers: { owner: { 'x-user': 'alice' }, other: { 'x-user': 'bob' }, unscoped: { 'x-user': 'carol' } },
  });
});

after(async () => {
  for (const app of apps) await app.close().catch(() => {});
  worker?.shutdown();
  await running?.catch(() => {});
  await connection?.close();
  await authServer?.stop();
  await temporal?.close();
});

interface Answer {
  status: number;
  /** The JSON-RPC message: the body, or a stream's first event. */
  message: {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: { reason?: string } };
  };
  text: string;
}

/** Posts one message; a stream is read up to its first event and then left. */
async function post(
  url: URL,
  era: Era,
  message: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Answer> {
  const method = typeof message.method === 'string' ? message.method : undefined;
  const params = (message.params ?? {}) as Record<string, unknown>;
  const framed =
    era === 'modern' && method ? framedRequest(method, params, TASKS_CLIENT) : { jsonrpc: '2.0', ...message };
  const eraHeaders =
    era === 'modern' && method
      ? framedHeaders(method, params)
      : {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        };
  const left = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...eraHeaders, ...headers },
    body: JSON.stringify(framed),
    signal: left.signal,
  });
  let text = '';
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  const stream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  for (;;) {
    const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
    if (stream && /^data: .+$/m.test(text)) break;
  }
  left.abort();
  const json = stream ? /^data: (.+)$/m.exec(text)?.[1] : text;
  let parsed: Answer['message'] = {};
  try {
    parsed = json ? JSON.parse(json) : {};
  } catch {
    parsed = {};
  }
  return { status: response.status, message: parsed, text };
}

/**
 * A request naming `taskId` where the declaration of `method` reads it. The test holds one per
 * declared method: a method declared later without one fails here.
 */
function requestFor(method: string, taskId: string): Record<string, unknown> {
  const params: Record<string, Record<string, unknown>> = {
    initialize: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'rights', version: '1' },
    },
    ping: {},
    'server/discover': {},
    'tools/list': {},
    'tools/call': { name: GUARDED.name, arguments: { text: 'hi', ms: 0 } },
    'tasks/get': { taskId },
    'tasks/update': { taskId, inputResponses: { approve: { action: 'accept', content: { approve: true } } } },
    'tasks/cancel': { taskId },
    'tasks/result': { taskId },
    'tasks/list': {},
    'subscriptions/listen': { notifications: { taskIds: [taskId] } },
    'resources/read': { uri: `artifact://${taskId}/${'a'.repeat(24)}` },
    'resources/list': {},
    'resources/templates/list': {},
  };
  const chosen = params[method];
  assert.ok(chosen, `${method} is declared in the method table, yet this test has no request for it`);
  return { id: 1, method, params: chosen };
}

/** A companion's call, naming `taskId` when its role takes a workflow_id. */
function companionCall(role: keyof typeof COMPANIONS, taskId: string): Record<string, unknown> {
  const args: Record<string, unknown> = COMPANIONS[role].namesTask ? { workflow_id: taskId } : {};
  if (role === 'respond')
    Object.assign(args, { key: 'approve', action: 'accept', content: { approve: true } });
  return { id: 1, method: 'tools/call', params: { name: COMPANION_NAMES[role], arguments: args } };
}

/** Whether an answer says the caller was refused for its scopes. */
const scopeRefused = (answer: Answer) =>
  answer.status === 403 && answer.message.error?.data?.reason === 'insufficient_scope';

/** Whether an answer says the task is unknown to the caller, in the shape of its method. */
function unknownTask(answer: Answer): boolean {
  // A push stream acknowledges the tasks it watches: an unknown one is left out.
  const watched = (answer.message as { params?: { notifications?: { taskIds?: unknown[] } } }).params
    ?.notifications?.taskIds;
  if (watched) return watched.length === 0;
  if (answer.message.error) return /not found|unknown|no task|expired/i.test(answer.message.error.message);
  const structured = answer.message.result?.structuredContent as { status?: string } | undefined;
  return structured?.status === 'not_found' || /not[ _]found/i.test(answer.text.slice(0, 2_000));
}

/** Starts a long run as the owner and gives its task id. */
async function ownersTask(signIn: SignIn): Promise<string> {
  const answer = await post(
    signIn.url,
    'legacy',
    { id: 1, method: 'tools/call', params: { name: GUARDED.name, arguments: { text: 'held', ms: 600_000 } } },
    signIn.headers.owner,
  );
  const taskId = (answer.message.result?.structuredContent as { workflow_id?: string } | undefined)
    ?.workflow_id;
  assert.ok(taskId, `${signIn.name}: the owner's start: ${answer.text.slice(0, 300)}`);
  return taskId;
}

describe('rights from the method table', () => {
  test('every declared method, companion and input answer, in every way of signing in: owner, other principal, missing scope', async () => {
    const checked: string[] = [];
    for (const signIn of signIns) {
      const taskId = await ownersTask(signIn);
      const messages: {
        label: string;
        era: Era;
        message: Record<string, unknown>;
        namesTask: boolean;
        touchesTool: boolean;
      }[] = [];
      for (const [method, declaration] of Object.entries(METHODS)) {
        const message = requestFor(method, taskId);
        const named = declaration.taskIds?.(message.params as Record<string, unknown>, message) ?? [];
        // The request names the task exactly where the declaration reads it.
        assert.equal(
          named.includes(taskId),
          declaration.taskIds !== undefined,
          `${method}: the declaration reads ${JSON.stringify(named)}`,
        );
        const touchesTool = declaration.taskIds !== undefined || method === 'tools/call';
        for (const era of declaration.eras)
          messages.push({
            label: `${era} ${method}`,
            era,
            message,
            namesTask: declaration.taskIds !== undefined,
            touchesTool,
          });
      }
      for (const role of Object.keys(COMPANIONS) as (keyof typeof COMPANIONS)[])
        for (const era of ['modern', 'legacy'] as const)
          messages.push({
            label: `${era} companion ${role}`,
            era,
            message: companionCall(role, taskId),
            namesTask: COMPANIONS[role].namesTask,
            touchesTool: true,
          });
      messages.push({
        label: 'legacy input answer',
        era: INPUT_ANSWER.eras[0] as Era,
        message: {
          id: inputRequestId(taskId, 'approve'),
          result: { action: 'accept', content: { approve: true } },
        },
        namesTask: true,
        touchesTool: true,
      });

      for (const { label, era, message, namesTask, touchesTool } of messages) {
        const where = `${signIn.name}, ${label}`;
        const unscoped = await post(signIn.url, era, message, signIn.headers.unscoped);
        assert.equal(
          scopeRefused(unscoped),
          touchesTool,
          `${where}, missing scope: ${unscoped.status} ${unscoped.text.slice(0, 200)}`,
        );
        const other = await post(signIn.url, era, message, signIn.headers.other);
        assert.equal(scopeRefused(other), false, `${where}, other principal: ${other.text.slice(0, 200)}`);
        if (namesTask && label !== 'legacy input answer')
          assert.ok(
            unknownTask(other),
            `${where}, other principal sees the task: ${other.text.slice(0, 300)}`,
          );
        if (message.method === undefined) continue; // a response: the owner's answer is delivered, checked elsewhere
        if (label.endsWith('tasks/cancel') || label.endsWith('companion cancel')) continue; // the owner's run stays up for the rest
        const owner = await post(signIn.url, era, message, signIn.headers.owner);
        assert.equal(scopeRefused(owner), false, `${where}, owner: ${owner.text.slice(0, 200)}`);
        if (namesTask && !label.endsWith('resources/read'))
          assert.equal(
            unknownTask(owner),
            false,
            `${where}, owner told unknown: ${owner.text.slice(0, 300)}`,
          );
        checked.push(where);
      }
    }
    assert.ok(checked.length > 3 * 20, `checked ${checked.length}`);
  });

  test("a quick tool's scopes, in every way of signing in: refused before its handler runs, else its handler learns them", async () => {
    // OAuth principals are the issuer's subjects (auth.md), the others the names given.
    const expected: Record<string, { principal: string; scopes: string[] }> = {
      'static tokens': { principal: 'alice', scopes: [SCOPE] },
      OAuth: { principal: `${authServer.issuer}#alice`, scopes: [REQUIRED, SCOPE] },
      "the host's authenticate": { principal: 'alice', scopes: [SCOPE] },
    };
    for (const signIn of signIns) {
      const call = { id: 1, method: 'tools/call', params: { name: QUICK.name, arguments: {} } };
      for (const era of ['modern', 'legacy'] as const) {
        const where = `${signIn.name}, ${era}`;
        const runs = quickRuns.length;
        const unscoped = await post(signIn.url, era, call, signIn.headers.unscoped);
        assert.ok(
          scopeRefused(unscoped),
          `${where}, missing scope: ${unscoped.status} ${unscoped.text.slice(0, 200)}`,
        );
        assert.equal(quickRuns.length, runs, `${where}: the handler ran for a caller lacking its scope`);
        const owner = await post(signIn.url, era, call, signIn.headers.owner);
        assert.equal(owner.status, 200, `${where}, owner: ${owner.text.slice(0, 200)}`);
        assert.deepEqual(quickRuns.slice(runs), [expected[signIn.name]], where);
      }
    }
  });

  test('a method the table does not declare is not served, in either revision', async () => {
    const legacy = ClientRequestSchema.options.map((option) => option.shape.method.value as string);
    const every = [...new Set([...legacy, 'server/discover', 'subscriptions/listen', 'tasks/update'])];
    const [signIn] = signIns;
    assert.ok(signIn);
    for (const method of every) {
      if (Object.hasOwn(METHODS, method)) continue;
      for (const era of ['modern', 'legacy'] as const) {
        const answer = await post(signIn.url, era, { id: 1, method, params: {} }, signIn.headers.unscoped);
        assert.equal(
          answer.message.error?.code,
          -32601,
          `${era} ${method} is served without a declaration: ${answer.text.slice(0, 200)}`,
        );
      }
    }
  });
});
