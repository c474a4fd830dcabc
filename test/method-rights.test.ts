// Who may call each MCP method and what it touches, as the MCP revisions and the project's docs
// state them (auth.md "Scopes", clients.md, catalog.md), written out here and not read from the
// gateway's method table: every method of each revision it is served to, every companion role and a
// 2025-11-25 input answer, in each way of signing in — static tokens with scopes, OAuth access tokens
// from a real authorization server, and an embedding host's own `authenticate` — sent by the task's
// owner, by another principal, and by a caller lacking the tool's scope, over real HTTP to the plugin
// on a real dev server with a worker; and a quick tool's scopes in each of those ways. A declaration
// that misses a task the docs name, serves a method to the wrong revision or drops its need of the
// Tasks extension fails here; a method declared or stated on one side only fails the first test.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import Fastify, { type FastifyInstance } from 'fastify';
import { type CatalogEntry, loadGatewaySettings, type QuickTool, temporalMcp } from '../gateway/index.ts';
import { inputRequestId } from '../gateway/mcp/legacy-task-input.ts';
import { COMPANIONS as COMPANION_ROLES, METHODS } from '../gateway/mcp/methods.ts';
import { freePort } from '../launcher/free-port.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import {
  type Framing,
  framedHeaders,
  framedRequest,
  PLAIN_CLIENT,
  TASKS_CLIENT,
} from './support/mcp-http.ts';
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

/** A protocol revision: 2026-07-28 (`modern`) or 2025-11-25 (`legacy`). */
type Era = 'modern' | 'legacy';
const BOTH: readonly Era[] = ['modern', 'legacy'];

/** What the docs say of one method: who is served it, what its request names, what it needs. */
interface MethodSpec {
  /** The revisions whose clients are served it; every other revision's client is not. */
  eras: readonly Era[];
  /** Its params, naming the owner's task where the method takes one. */
  params: (taskId: string) => Record<string, unknown>;
  /** It names a task: the caller needs the task's tool's scope, and another principal's task is unknown. */
  namesTask: boolean;
  /** It calls a tool: the caller needs that tool's scope. */
  callsTool?: true;
  /** A 2026-07-28 request without the Tasks extension is refused `-32021` (clients.md). */
  tasksExtension?: true;
}

/**
 * The methods served (clients.md, auth.md "Scopes"): the 2025-11-25 revision's lifecycle, tools,
 * resources and its own tasks (SEP-1686); 2026-07-28's discovery, tools, resources, push
 * subscriptions and the Tasks extension's methods.
 */
const SPEC: Record<string, MethodSpec> = {
  initialize: {
    eras: ['legacy'],
    params: () => ({
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'rights', version: '1' },
    }),
    namesTask: false,
  },
  // 2026-07-28 removed ping.
  ping: { eras: ['legacy'], params: () => ({}), namesTask: false },
  'server/discover': { eras: ['modern'], params: () => ({}), namesTask: false },
  'tools/list': { eras: BOTH, params: () => ({}), namesTask: false },
  'tools/call': {
    eras: BOTH,
    params: () => ({ name: GUARDED.name, arguments: { text: 'hi', ms: 0 } }),
    namesTask: false,
    callsTool: true,
  },
  'tasks/get': { eras: BOTH, params: (taskId) => ({ taskId }), namesTask: true, tasksExtension: true },
  'tasks/update': {
    eras: ['modern'],
    params: (taskId) => ({
      taskId,
      inputResponses: { approve: { action: 'accept', content: { approve: true } } },
    }),
    namesTask: true,
    tasksExtension: true,
  },
  'tasks/cancel': { eras: BOTH, params: (taskId) => ({ taskId }), namesTask: true, tasksExtension: true },
  'tasks/result': { eras: ['legacy'], params: (taskId) => ({ taskId }), namesTask: true },
  'tasks/list': { eras: ['legacy'], params: () => ({}), namesTask: false },
  'subscriptions/listen': {
    eras: ['modern'],
    params: (taskId) => ({ notifications: { taskIds: [taskId] } }),
    namesTask: true,
    tasksExtension: true,
  },
  // An artifact's URI names the run that made it (artifacts.md).
  'resources/read': {
    eras: BOTH,
    params: (taskId) => ({ uri: `artifact://${taskId}/${'a'.repeat(24)}` }),
    namesTask: true,
  },
  'resources/list': { eras: BOTH, params: () => ({}), namesTask: false },
  'resources/templates/list': { eras: BOTH, params: () => ({}), namesTask: false },
};

/** Every client request of the two revisions (2026-07-28 with its Tasks extension), served or not. */
const REVISION_METHODS: Record<Era, readonly string[]> = {
  legacy: [
    'initialize',
    'ping',
    'completion/complete',
    'logging/setLevel',
    'prompts/get',
    'prompts/list',
    'resources/list',
    'resources/templates/list',
    'resources/read',
    'resources/subscribe',
    'resources/unsubscribe',
    'tools/call',
    'tools/list',
    'tasks/get',
    'tasks/result',
    'tasks/list',
    'tasks/cancel',
  ],
  modern: [
    'server/discover',
    'completion/complete',
    'prompts/get',
    'prompts/list',
    'resources/list',
    'resources/templates/list',
    'resources/read',
    'tools/call',
    'tools/list',
    'subscriptions/listen',
    'tasks/get',
    'tasks/update',
    'tasks/cancel',
  ],
};

/** A catalog tool's companions (catalog.md): each but the list takes the `workflow_id` of a run. */
const COMPANIONS = {
  result: { name: 'get_echo_guarded_result', namesTask: true },
  cancel: { name: 'cancel_echo_guarded', namesTask: true },
  respond: { name: 'respond_to_echo_guarded', namesTask: true },
  list: { name: 'list_echo_guarded', namesTask: false },
} as const;

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
  framing: Framing = TASKS_CLIENT,
): Promise<Answer> {
  const method = typeof message.method === 'string' ? message.method : undefined;
  const params = (message.params ?? {}) as Record<string, unknown>;
  const framed =
    era === 'modern' && method ? framedRequest(method, params, framing) : { jsonrpc: '2.0', ...message };
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

/** A companion's call, naming `taskId` when its role takes a workflow_id. */
function companionCall(role: keyof typeof COMPANIONS, taskId: string): Record<string, unknown> {
  const args: Record<string, unknown> = COMPANIONS[role].namesTask ? { workflow_id: taskId } : {};
  if (role === 'respond')
    Object.assign(args, { key: 'approve', action: 'accept', content: { approve: true } });
  return { id: 1, method: 'tools/call', params: { name: COMPANIONS[role].name, arguments: args } };
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

describe('rights as the docs state them', () => {
  test('the method table declares exactly the methods and companion roles the docs state', () => {
    // One declared without an entry here, or stated here and not declared, fails.
    assert.deepEqual(Object.keys(METHODS).sort(), Object.keys(SPEC).sort());
    assert.deepEqual(Object.keys(COMPANION_ROLES).sort(), Object.keys(COMPANIONS).sort());
  });

  test('every method, companion and input answer, in every way of signing in: owner, other principal, missing scope', async () => {
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
      for (const [method, spec] of Object.entries(SPEC))
        for (const era of spec.eras)
          messages.push({
            label: `${era} ${method}`,
            era,
            message: { id: 1, method, params: spec.params(taskId) },
            namesTask: spec.namesTask,
            touchesTool: spec.namesTask || spec.callsTool === true,
          });
      for (const role of Object.keys(COMPANIONS) as (keyof typeof COMPANIONS)[])
        for (const era of BOTH)
          messages.push({
            label: `${era} companion ${role}`,
            era,
            message: companionCall(role, taskId),
            namesTask: COMPANIONS[role].namesTask,
            touchesTool: true,
          });
      // A 2025-11-25 client's answer to its task's input request: a response whose id names the task.
      messages.push({
        label: 'legacy input answer',
        era: 'legacy',
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
        assert.notEqual(
          other.message.error?.code,
          -32601,
          `${where} is not served: ${other.text.slice(0, 200)}`,
        );
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

  test('a 2026-07-28 request without the Tasks extension is refused exactly the methods that need it', async () => {
    const [signIn] = signIns;
    assert.ok(signIn);
    const taskId = await ownersTask(signIn);
    for (const [method, spec] of Object.entries(SPEC)) {
      if (!spec.eras.includes('modern')) continue;
      const message = { id: 1, method, params: spec.params(taskId) };
      const answer = await post(signIn.url, 'modern', message, signIn.headers.owner, PLAIN_CLIENT);
      assert.equal(
        answer.message.error?.code === -32021,
        spec.tasksExtension === true,
        `${method} without the Tasks extension: ${answer.status} ${answer.text.slice(0, 200)}`,
      );
    }
  });

  test('every other method of both revisions is not served', async () => {
    const [signIn] = signIns;
    assert.ok(signIn);
    const every = new Set([...REVISION_METHODS.legacy, ...REVISION_METHODS.modern, ...Object.keys(SPEC)]);
    let refused = 0;
    for (const method of every)
      for (const era of BOTH) {
        if (SPEC[method]?.eras.includes(era)) continue;
        const answer = await post(signIn.url, era, { id: 1, method, params: {} }, signIn.headers.unscoped);
        assert.equal(
          answer.message.error?.code,
          -32601,
          `${era} ${method} is served: ${answer.status} ${answer.text.slice(0, 200)}`,
        );
        refused++;
      }
    assert.ok(refused > 10, `refused ${refused}`);
  });
});
