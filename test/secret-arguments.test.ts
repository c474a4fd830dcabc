// Secrets nested in a tool's arguments, against a real dev server, a worker and a gateway with the
// payload codec on: a value the schema marks writeOnly inside an object, in an array's items and
// behind a $ref (and, in a second tool, under `if` and in a resource of its own `$id`) is kept from the memo, the Web UI summary and details, the search attributes, the
// summary and status hooks, the gateway's logs, and, in clear, from the workflow history; decoded,
// only the workflow's input holds it. Keyed retries still compare it. Without the codec such a
// catalog stops the gateway, as one with a top-level secret does.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { EncryptionCodec } from '../common/payload-codec.ts';
import { buildApp } from '../gateway/app.ts';
import { backendOptions, loadSettings } from '../gateway/settings/index.ts';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import { createTemporalClient } from '../gateway/temporal/client.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { PLAIN_CLIENT, rpc, rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const ECHO_WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/slow-echo.ts', import.meta.url));
const TASK_QUEUE = `secret-arguments-${process.pid}`;
const KEY = { id: 'k-secrets', key: randomBytes(32) };
const CODEC_ENV = { MCP_CODEC_KEYS: `${KEY.id}=${KEY.key.toString('base64')}`, MCP_CODEC_KEY_ID: KEY.id };

/** What the catalog's hooks were given, recorded by the hooks module (it runs in this process). */
const seen = globalThis as { hookArguments?: unknown[] };

const dir = mkdtempSync(join(tmpdir(), 'secret-arguments-'));
const CATALOG = join(dir, 'tools.json');
writeFileSync(
  join(dir, 'hooks.mjs'),
  [
    'const record = (args) => { (globalThis.hookArguments ??= []).push(structuredClone(args)); };',
    'export const hooks = {',
    '  summary: (tool, args) => { record(args); return [tool, JSON.stringify(args)].join(" "); },',
    '  statusMessage: (view) => { record(view.arguments); return undefined; },',
    '};',
  ].join('\n'),
);
writeFileSync(
  CATALOG,
  JSON.stringify({
    tools: [
      {
        name: 'echo_nested',
        description: 'Echoes text; takes credentials it must not show.',
        workflow: 'slowEcho',
        taskQueue: TASK_QUEUE,
        waitBudgetMs: 300,
        idempotencyKeyArgument: 'request_id',
        hooks: './hooks.mjs',
        inputSchema: {
          type: 'object',
          $defs: { Key: { type: 'string', writeOnly: true } },
          properties: {
            text: { type: 'string' },
            ms: { type: 'integer', default: 0 },
            request_id: { type: 'string' },
            auth: {
              type: 'object',
              properties: { user: { type: 'string' }, token: { type: 'string', writeOnly: true } },
              required: ['user', 'token'],
            },
            mirrors: {
              type: 'array',
              items: {
                type: 'object',
                properties: { url: { type: 'string' }, key: { $ref: '#/$defs/Key' } },
              },
            },
          },
          required: ['text', 'auth'],
          additionalProperties: false,
        },
      },
      {
        name: 'echo_conditional',
        description: 'Echoes text; takes a pin, or a login, it must not show.',
        workflow: 'slowEcho',
        taskQueue: TASK_QUEUE,
        waitBudgetMs: 300,
        inputSchema: {
          type: 'object',
          $defs: {
            Secret: { type: 'string' },
            // A resource of its own: its `#/$defs/Secret` is its own, a secret (the root's is not).
            Login: {
              $id: 'login.json',
              type: 'object',
              $defs: { Secret: { type: 'string', writeOnly: true } },
              properties: { user: { type: 'string' }, password: { $ref: '#/$defs/Secret' } },
              required: ['user', 'password'],
            },
          },
          properties: {
            text: { type: 'string' },
            ms: { type: 'integer', default: 0 },
            mode: { enum: ['pin', 'login'] },
            login: { $ref: '#/$defs/Login' },
            note: { $ref: '#/$defs/Secret' },
          },
          required: ['text', 'mode'],
          if: { properties: { mode: { const: 'pin' }, pin: { type: 'string', writeOnly: true } } },
          // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a promise
          then: { required: ['pin'] },
          else: { required: ['login'] },
          unevaluatedProperties: false,
        },
      },
    ],
  }),
);

let temporal: TestTemporal;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let app: FastifyInstance;
let url: URL;
/** The gateway's Temporal client: it holds the codec key, so it reads memo and texts decoded. */
let decoding: Client;
const logLines: string[] = [];

before(async () => {
  temporal = await startTestTemporal();
  const codec = new EncryptionCodec({ current: KEY.id, keys: new Map([[KEY.id, KEY.key]]) });
  connection = await NativeConnection.connect({ address: temporal.address });
  worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: ECHO_WORKFLOWS,
    dataConverter: { payloadCodecs: [codec] },
  });
  running = worker.run();
  const config = await loadSettings({
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MCP_TOOLS_FILE: CATALOG,
    MCP_POLL_INTERVAL_MS: '200',
    MCP_MAX_RUNNING_TASKS: '0',
    ...CODEC_ENV,
  });
  decoding = await createTemporalClient(config.temporal, config.temporalTimeoutMs, config.codec);
  const backend = new TemporalBackend(decoding, backendOptions(config, Buffer.from(TEST_SERVER_SECRET)));
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  app = buildApp(config, { backend, logger: { level: 'trace', stream } });
  url = new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));
});

after(async () => {
  await app?.close();
  await decoding?.connection.close();
  worker?.shutdown();
  await running;
  await connection?.close();
  await temporal?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Arguments with two secrets nested in an object and in array items, and the secrets. */
function nestedArguments(requestId: string, ms = 0) {
  const token = `tok-${randomUUID()}`;
  const mirrorKey = `mk-${randomUUID()}`;
  return {
    secrets: [token, mirrorKey],
    args: {
      text: 'hello',
      ms,
      request_id: requestId,
      auth: { user: 'ann', token },
      mirrors: [{ url: 'https://a.example' }, { url: 'https://b.example', key: mirrorKey }],
    },
  };
}

/** Every payload in a run's raw history, with the place it sits at (`events.0.….input.payloads.0`). */
async function historyPayloads(workflowId: string): Promise<{ at: string; payload: Payload }[]> {
  const { history } = await temporal.client.workflowService.getWorkflowExecutionHistory({
    namespace: temporal.namespace,
    execution: { workflowId },
  });
  const found: { at: string; payload: Payload }[] = [];
  const walk = (value: unknown, at: string) => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const payload = value as Payload;
    if (payload.metadata && payload.data !== undefined) found.push({ at, payload });
    else for (const [key, item] of Object.entries(value)) walk(item, at ? `${at}.${key}` : key);
  };
  walk(history?.events, 'events');
  return found;
}

/** A payload's bytes as text: metadata and data, as a reader of the raw history sees them. */
const bytesOf = (payload: Payload) =>
  [
    ...Object.values(payload.metadata ?? {}).map((v) => Buffer.from(v as Uint8Array).toString('latin1')),
    Buffer.from(payload.data ?? new Uint8Array()).toString('latin1'),
  ].join('\n');

/** Follows a start/poll handle to its end with the result companion. */
async function completed(workflowId: string, tool = 'echo_nested') {
  return eventually(
    async () => {
      const answer = await rpc(
        url,
        'tools/call',
        {
          name: `get_${tool}_result`,
          arguments: { workflow_id: workflowId },
        },
        PLAIN_CLIENT,
      );
      const json = answer.result?.structuredContent as { status?: string } | undefined;
      return json?.status === 'running' ? undefined : json;
    },
    30_000,
    `${workflowId} to complete`,
    100,
  );
}

describe('secrets nested in the arguments, with the codec on', () => {
  test('kept from the memo, the Web UI texts, the search attributes, the hooks and the logs; encrypted in history', async () => {
    seen.hookArguments = [];
    const { args, secrets } = nestedArguments(`r-${randomUUID()}`);
    const first = await rpc(url, 'tools/call', { name: 'echo_nested', arguments: args }, PLAIN_CLIENT);
    const handle = first.result?.structuredContent as { workflow_id: string; status: string };
    assert.ok(handle?.workflow_id, JSON.stringify(first));
    const done = handle.status === 'completed' ? handle : await completed(handle.workflow_id);
    assert.equal(done?.status, 'completed', JSON.stringify(done));

    const description = await decoding.workflow.getHandle(handle.workflow_id).describe();
    const memo = JSON.stringify(description.memo);
    const details = (await description.staticDetails()) ?? '';
    const summary = (await description.staticSummary()) ?? '';
    const attributes = JSON.stringify(description.raw.workflowExecutionInfo?.searchAttributes);
    const kept = { memo, details, summary, attributes, hooks: JSON.stringify(seen.hookArguments) };
    for (const [where, text] of Object.entries(kept))
      for (const secret of secrets) assert.ok(!text.includes(secret), `${where} holds a secret: ${text}`);
    // The memo keeps each nested secret as a keyed digest in its place, the rest as given.
    const memoArguments = (description.memo as { arguments: typeof args }).arguments;
    assert.equal(memoArguments.auth.user, 'ann');
    assert.match(memoArguments.auth.token, /^\[secret hmac-sha256:[0-9a-f]{32}\]$/);
    assert.deepEqual(memoArguments.mirrors[0], { url: 'https://a.example' });
    assert.match(String(memoArguments.mirrors[1]?.key), /^\[secret hmac-sha256:[0-9a-f]{32}\]$/);
    assert.match(details, /"token": "\[secret hmac-sha256:/);
    // The summary hook was given the arguments with each secret as "[secret]".
    assert.deepEqual(seen.hookArguments?.[0], {
      ...args,
      auth: { user: 'ann', token: '[secret]' },
      mirrors: [{ url: 'https://a.example' }, { url: 'https://b.example', key: '[secret]' }],
    });
    assert.match(summary, /"token":"\[secret\]"/);

    // History in clear holds neither secret: every payload is encrypted. Decoded, only the
    // workflow's input holds them (the workflow needs them).
    const payloads = await historyPayloads(handle.workflow_id);
    assert.ok(payloads.length >= 3, `${payloads.length} payloads`);
    const codec = new EncryptionCodec({ current: KEY.id, keys: new Map([[KEY.id, KEY.key]]) });
    const holding: string[] = [];
    for (const { at, payload } of payloads) {
      for (const secret of secrets)
        assert.ok(!bytesOf(payload).includes(secret), `${at} holds a secret in clear`);
      const [clear] = await codec.decode([payload]);
      if (clear && secrets.every((secret) => bytesOf(clear).includes(secret))) holding.push(at);
    }
    assert.deepEqual(holding, ['events.0.workflowExecutionStartedEventAttributes.input.payloads.0']);

    const logs = logLines.join('');
    assert.match(logs, /tools\/call|"url":"\/mcp"/, 'the gateway logged the calls');
    for (const secret of secrets) assert.ok(!logs.includes(secret), 'the logs hold a secret');
  });

  test('a task answer and its status hook see no secret; a keyed retry compares the nested secrets', async () => {
    seen.hookArguments = [];
    const requestId = `r-${randomUUID()}`;
    const { args, secrets } = nestedArguments(requestId, 1_500);
    const created = await rpcResult(
      url,
      'tools/call',
      { name: 'echo_nested', arguments: args },
      TASKS_CLIENT,
    );
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const taskId = String(created.taskId);
    await eventually(
      async () => {
        const task = await rpcResult(url, 'tasks/get', { taskId }, TASKS_CLIENT);
        return task.status === 'completed' ? task : undefined;
      },
      30_000,
      `${taskId} to complete`,
      100,
    );
    assert.ok((seen.hookArguments?.length ?? 0) >= 2, 'the summary and status hooks were called');
    const hooks = JSON.stringify(seen.hookArguments);
    for (const secret of secrets) assert.ok(!hooks.includes(secret), hooks);
    assert.match(hooks, /"token":"(\[secret\]|\[secret hmac-sha256:[0-9a-f]{32}\])"/);

    // The same key, the same secrets (members in another order): the same run.
    const reordered = { ...args, auth: { token: args.auth.token, user: 'ann' } };
    const again = await rpcResult(
      url,
      'tools/call',
      { name: 'echo_nested', arguments: reordered },
      TASKS_CLIENT,
    );
    // The run has ended: the retry answers its result inline.
    assert.equal(
      (again.structuredContent as { workflow_id?: string }).workflow_id,
      taskId,
      JSON.stringify(again),
    );
    // Another nested secret under the same key: a conflict naming the argument, never a value.
    const other = {
      ...args,
      mirrors: [{ url: 'https://a.example' }, { url: 'https://b.example', key: 'mk-other' }],
    };
    const conflict = await rpc(url, 'tools/call', { name: 'echo_nested', arguments: other }, TASKS_CLIENT);
    assert.equal(conflict.error?.code, -32602, JSON.stringify(conflict));
    assert.match(conflict.error?.message ?? '', /mirrors/);
    for (const secret of [...secrets, 'mk-other'])
      assert.ok(!(conflict.error?.message ?? '').includes(secret), conflict.error?.message);
  });
});

describe('secrets under if and behind a $ref resolved against a nested $id, with the codec on', () => {
  test('kept from the memo, the Web UI texts and the logs; encrypted in history', async () => {
    const [password, pin] = [`pw-${randomUUID()}`, `pin-${randomUUID()}`];
    const args = { text: 'hello', mode: 'pin', pin, login: { user: 'ann', password }, note: 'a plain note' };
    const first = await rpc(url, 'tools/call', { name: 'echo_conditional', arguments: args }, PLAIN_CLIENT);
    const handle = first.result?.structuredContent as { workflow_id: string; status: string };
    assert.ok(handle?.workflow_id, JSON.stringify(first));
    const done =
      handle.status === 'completed' ? handle : await completed(handle.workflow_id, 'echo_conditional');
    assert.equal(done?.status, 'completed', JSON.stringify(done));

    const description = await decoding.workflow.getHandle(handle.workflow_id).describe();
    const texts = {
      memo: JSON.stringify(description.memo),
      details: (await description.staticDetails()) ?? '',
      summary: (await description.staticSummary()) ?? '',
      answer: JSON.stringify(first),
      logs: logLines.join(''),
    };
    for (const [where, text] of Object.entries(texts))
      for (const secret of [password, pin])
        assert.ok(!text.includes(secret), `${where} holds a secret: ${text}`);
    // Each secret a digest in its place; the root's `Secret`, which is not writeOnly, kept as given.
    const kept = (description.memo as { arguments: typeof args }).arguments;
    assert.match(kept.pin, /^\[secret hmac-sha256:[0-9a-f]{32}\]$/);
    assert.match(kept.login.password, /^\[secret hmac-sha256:[0-9a-f]{32}\]$/);
    assert.deepEqual(
      { ...kept, pin: '', login: { ...kept.login, password: '' } },
      { ...args, ms: 0, pin: '', login: { user: 'ann', password: '' } },
    );

    const payloads = await historyPayloads(handle.workflow_id);
    assert.ok(payloads.length >= 3, `${payloads.length} payloads`);
    for (const { at, payload } of payloads)
      for (const secret of [password, pin])
        assert.ok(!bytesOf(payload).includes(secret), `${at} holds a secret in clear`);
  });
});

describe('without the codec', () => {
  test('a catalog with a nested secret stops the gateway, naming the tool and its places', async () => {
    await assert.rejects(
      loadSettings({ TEMPORAL_ADDRESS: temporal.address, MCP_TOOLS_FILE: CATALOG }),
      (err: Error) => {
        assert.match(err.message, /echo_nested \(auth\.token, mirrors\[\]\.key\)/);
        assert.match(err.message, /echo_conditional \((login\.password, pin|pin, login\.password)\)/);
        assert.match(err.message, /MCP_CODEC_KEYS/);
        assert.match(err.message, /MCP_ALLOW_PLAINTEXT_SECRETS=true/);
        return true;
      },
    );
  });
});
