// Payloads encrypted end to end, against the real stack: a dev server, the worker process (mining),
// the Python fixture worker and a TypeScript worker of the catalog fixtures, and gateways with the
// codec on. History holds ciphertext only (Temporal's own CLI shows it), every gateway and worker
// that holds the key reads it, a rotated gateway still reads the old key's runs, and a payload no
// key here opens is a clear error naming its key id. Then the codec server, as the Web UI calls it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { codecFromEnv } from '../common/codec-settings.ts';
import { ENCRYPTED_ENCODING, EncryptionCodec, KEY_ID_METADATA } from '../common/payload-codec.ts';
import { requireTemporalCli } from '../launcher/temporal-cli.ts';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { PLAIN_CLIENT, rpc } from './support/mcp-http.ts';
import { type PythonWorker, startPythonWorker } from './support/python-worker.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const CATALOG = fileURLToPath(new URL('./fixtures/catalog.yaml', import.meta.url));
const ECHO_WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/slow-echo.ts', import.meta.url));

const key = () => randomBytes(32).toString('base64');
const OLD = { id: 'k-2026-06', key: key() };
const NEW = { id: 'k-2026-12', key: key() };
const OTHER = { id: 'k-elsewhere', key: key() };
const pair = (k: { id: string; key: string }) => `${k.id}=${k.key}`;

const OPS_TOKEN = `ops-${randomUUID()}`;
const DEV_TOKEN = `dev-${randomUUID()}`;
const AUTH = { authorization: `Bearer ${OPS_TOKEN}` };
const UI_ORIGIN = 'http://localhost:8233';
const TASK_QUEUE = `codec-${process.pid}`;

let temporal: TestTemporal;
let worker: WorkerProcess;
let python: PythonWorker;
let echoConnection: NativeConnection;
let echoWorker: Worker;
let echoRun: Promise<void>;
/** Writes with the old key; the codec server on, for "ops" only. */
let gateway: TestGateway;
/** Rotated: the new key writes, the old one only reads. */
let rotated: TestGateway;
/** Holds none of the keys the runs were written with. */
let stranger: TestGateway;
/** The catalog fixtures (Python review_draft, TypeScript echo_slowly), rotated keys. */
let catalog: TestGateway;

const gatewayEnv = (keys: string, current: string, extra: Record<string, string> = {}) => ({
  MCP_CODEC_KEYS: keys,
  MCP_CODEC_KEY_ID: current,
  MCP_AUTH_TOKENS: `ops:${OPS_TOKEN},dev:${DEV_TOKEN}`,
  ...extra,
});

/** A start/poll tool's JSON (structuredContent), or the JSON-RPC error. */
async function call(target: TestGateway, name: string, args: Record<string, unknown>) {
  const answer = await rpc(target.url, 'tools/call', { name, arguments: args }, PLAIN_CLIENT, AUTH);
  return {
    json: answer.result?.structuredContent as Record<string, unknown> | undefined,
    error: answer.error,
  };
}

/** Polls `poll` (a result companion) until the run leaves `running`. */
async function settled(target: TestGateway, poll: string, workflowId: string) {
  return eventually(
    async () => {
      const { json, error } = await call(target, poll, { workflow_id: workflowId });
      if (error) throw new Error(`${poll} failed: ${JSON.stringify(error)}`);
      return json?.status === 'running' ? undefined : json;
    },
    60_000,
    `${workflowId} to settle`,
    200,
  );
}

/** `temporal workflow show` of the run, as JSON, with Temporal's own CLI. */
function showHistory(workflowId: string): string {
  return execFileSync(
    requireTemporalCli(),
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      '--address',
      temporal.address,
      '--namespace',
      temporal.namespace,
      '--output',
      'json',
    ],
    { encoding: 'utf8' },
  );
}

/** Every string of a JSON text, and the base64 decoding of each: where a plaintext would show. */
function readableText(json: string): string {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') {
      out.push(value);
      if (/^[A-Za-z0-9+/]+={0,2}$/.test(value)) out.push(Buffer.from(value, 'base64').toString('latin1'));
    } else if (value && typeof value === 'object') for (const item of Object.values(value)) walk(item);
  };
  walk(JSON.parse(json));
  return out.join('\n');
}

/** The payloads of the run's history whose metadata marks them encrypted, with their key ids. */
async function encryptedPayloads(workflowId: string): Promise<Payload[]> {
  const found: Payload[] = [];
  const walk = (value: unknown) => {
    if (!value || typeof value !== 'object') return;
    const payload = value as Payload;
    if (payload.metadata && payload.data !== undefined && payload.metadata.encoding) {
      if (Buffer.from(payload.metadata.encoding).toString() === ENCRYPTED_ENCODING) found.push(payload);
      return;
    }
    for (const item of Object.values(value)) walk(item);
  };
  const { history } = await temporal.client.workflowService.getWorkflowExecutionHistory({
    namespace: temporal.namespace,
    execution: { workflowId },
  });
  walk(history?.events);
  return found;
}

const keyIdOf = (payload: Payload) => Buffer.from(payload.metadata?.[KEY_ID_METADATA] ?? []).toString();

before(async () => {
  temporal = await startTestTemporal();
  worker = startWorker({
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MCP_CODEC_KEYS: `${pair(OLD)},${pair(NEW)}`,
    MCP_CODEC_KEY_ID: OLD.id,
  });
  python = startPythonWorker({
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: 'fixture-review',
    MCP_CODEC_KEYS: `${pair(NEW)} ${pair(OLD)}`,
    MCP_CODEC_KEY_ID: NEW.id,
  });
  // A TypeScript worker whose every payload leaves with a flipped byte: what a tampered history reads like.
  const honest = new EncryptionCodec({
    current: NEW.id,
    keys: new Map([[NEW.id, Buffer.from(NEW.key, 'base64')]]),
  });
  echoConnection = await NativeConnection.connect({ address: temporal.address });
  echoWorker = await Worker.create({
    connection: echoConnection,
    namespace: temporal.namespace,
    taskQueue: 'fixture-echo',
    workflowsPath: ECHO_WORKFLOWS,
    dataConverter: {
      payloadCodecs: [
        {
          encode: async (payloads) =>
            (await honest.encode(payloads)).map((p) => {
              const data = Buffer.from(p.data as Uint8Array);
              data[data.length - 1] = (data[data.length - 1] as number) ^ 0x01;
              return { ...p, data };
            }),
          decode: (payloads) => honest.decode(payloads),
        },
      ],
    },
  });
  echoRun = echoWorker.run();
  const common = {
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
  };
  gateway = await startGateway({
    ...common,
    waitBudgetMs: 3_000,
    env: gatewayEnv(pair(OLD), OLD.id, {
      MCP_CODEC_SERVER: 'true',
      MCP_CODEC_CORS_ORIGINS: `${UI_ORIGIN}, http://127.0.0.1:8233`,
      MCP_CODEC_PRINCIPALS: 'ops',
    }),
  });
  rotated = await startGateway({ ...common, env: gatewayEnv(`${pair(NEW)},${pair(OLD)}`, NEW.id) });
  stranger = await startGateway({ ...common, env: gatewayEnv(pair(OTHER), OTHER.id) });
  catalog = await startGateway({
    ...common,
    waitBudgetMs: 2_000,
    env: gatewayEnv(`${pair(NEW)},${pair(OLD)}`, NEW.id, { MCP_TOOLS_FILE: CATALOG }),
  });
  await Promise.all([worker.ready, python.ready]);
});

after(async () => {
  await Promise.all([gateway, rotated, stranger, catalog].map((g) => g?.close()));
  echoWorker?.shutdown();
  await echoRun?.catch(() => {});
  await echoConnection?.close();
  await Promise.all([worker?.stop(), python?.stop()]);
  await temporal?.close();
});

/** A mining run through `gateway`, followed to its result; its workflow id and the secret it carried. */
let mined: { workflowId: string; secret: string; result: Record<string, unknown> } | undefined;
async function minedRun() {
  if (mined) return mined;
  const secret = `patient-record-${randomUUID()}`;
  const { json, error } = await call(gateway, 'start_mining', { difficulty: 4, blocks: 1, data: secret });
  assert.equal(error, undefined, JSON.stringify(error));
  const workflowId = String(json?.workflow_id);
  const done = json?.status === 'completed' ? json : await settled(gateway, 'get_mining_result', workflowId);
  assert.equal(done?.status, 'completed', JSON.stringify(done));
  mined = { workflowId, secret, result: done?.result as Record<string, unknown> };
  return mined;
}

describe('encrypted history', () => {
  test('the plaintext check finds an argument a run without the codec carries', async () => {
    const secret = `in-clear-${randomUUID()}`;
    const handle = await temporal.client.workflow.start('nobodyPollsThis', {
      taskQueue: `unpolled-${randomUUID()}`,
      workflowId: `clear-${randomUUID()}`,
      args: [{ data: secret }],
    });
    assert.match(readableText(showHistory(handle.workflowId)), new RegExp(secret));
    await handle.terminate();
  });

  test('temporal workflow show prints ciphertext; the gateway answers the result in clear', async () => {
    const { workflowId, secret, result } = await minedRun();
    assert.equal(result.data, secret, 'the gateway reads the result the worker wrote');
    assert.match(String(result.finalHash), /^[0-9a-f]{64}$/);
    const shown = showHistory(workflowId);
    const readable = readableText(shown);
    assert.doesNotMatch(readable, new RegExp(secret), 'the argument is nowhere in clear');
    assert.ok(!readable.includes(String(result.finalHash)), 'nor the result');
    assert.match(readable, /binary\/encrypted/);
    const payloads = await encryptedPayloads(workflowId);
    // Input, memo, result at least; every one under the key that writes (the worker's and the gateway's).
    assert.ok(payloads.length >= 3, `only ${payloads.length} encrypted payloads`);
    assert.deepEqual(new Set(payloads.map(keyIdOf)), new Set([OLD.id]));
  });

  test('search attributes stay readable: the run is found by tool and principal, in clear', async () => {
    const { workflowId } = await minedRun();
    const found = await eventually(
      async () => {
        const { executions } = await temporal.client.workflowService.listWorkflowExecutions({
          namespace: temporal.namespace,
          query: `McpTool = "start_mining" AND McpPrincipal = "ops"`,
        });
        return executions.find((run) => run.execution?.workflowId === workflowId);
      },
      15_000,
      'the run in the visibility store',
    );
    const fields = found.searchAttributes?.indexedFields ?? {};
    const tool = fields.McpTool;
    assert.equal(Buffer.from(tool?.metadata?.encoding ?? []).toString(), 'json/plain');
    assert.equal(JSON.parse(Buffer.from(tool?.data ?? []).toString()), 'start_mining');
  });

  test('a rotated gateway (new key writes, old key reads) still reads the old run', async () => {
    const { workflowId, secret } = await minedRun();
    const { json, error } = await call(rotated, 'get_mining_result', { workflow_id: workflowId });
    assert.equal(error, undefined, JSON.stringify(error));
    assert.equal(json?.status, 'completed');
    assert.equal((json?.result as { data?: string } | undefined)?.data, secret);
  });

  test('a gateway without the key: a clear error naming the key id, no plaintext', async () => {
    const { workflowId, secret } = await minedRun();
    const { json, error } = await call(stranger, 'get_mining_result', { workflow_id: workflowId });
    assert.equal(json, undefined);
    assert.equal(error?.code, -32603);
    assert.match(error?.message ?? '', new RegExp(`cannot be decrypted.*key id "${OLD.id}"`));
    assert.deepEqual(error?.data, { reason: 'payload_undecryptable', keyId: OLD.id, cause: 'unknown_key' });
    assert.doesNotMatch(JSON.stringify(error), new RegExp(secret));
  });

  test('a Python workflow reads the arguments the gateway encrypted and writes a result it reads', async () => {
    const text = `python secret ${randomUUID()}`;
    const { json: started } = await call(catalog, 'review_draft', { text, steps: 1, step_ms: 0 });
    const id = String(started?.workflow_id);
    await eventually(
      async () => {
        const { json } = await call(catalog, 'check_review', { workflow_id: id });
        return json?.status === 'input_required' ? json : undefined;
      },
      30_000,
      'input_required',
      200,
    );
    await call(catalog, 'respond_to_review_draft', {
      workflow_id: id,
      key: 'approve-1',
      action: 'accept',
      content: { approve: true },
    });
    const done = await settled(catalog, 'check_review', id);
    assert.equal(done?.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done?.result, { draft: text.toUpperCase(), words: 3, approved: true });
    const readable = readableText(showHistory(id));
    assert.ok(!readable.includes(text) && !readable.includes(text.toUpperCase()), 'no plaintext in history');
    // The result was sealed by the Python worker: our codec opens it byte for byte.
    const { history } = await temporal.client.workflowService.getWorkflowExecutionHistory({
      namespace: temporal.namespace,
      execution: { workflowId: id },
    });
    const completed = history?.events?.find((e) => e.workflowExecutionCompletedEventAttributes);
    const sealed = completed?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0] as Payload;
    assert.equal(keyIdOf(sealed), NEW.id);
    const codec = codecFromEnv({ MCP_CODEC_KEYS: pair(NEW) });
    const [opened] = await (codec as EncryptionCodec).decode([sealed]);
    assert.equal(Buffer.from(opened?.metadata?.encoding ?? []).toString(), 'json/plain');
    assert.deepEqual(JSON.parse(Buffer.from(opened?.data ?? []).toString()), done?.result);
  });

  test('the worker given a payload of a key it lacks: the workflow task fails naming the key id, the worker lives on', async () => {
    const foreign = new EncryptionCodec({
      current: OTHER.id,
      keys: new Map([[OTHER.id, Buffer.from(OTHER.key, 'base64')]]),
    });
    const client = new Client({
      connection: temporal.client.connection,
      namespace: temporal.namespace,
      dataConverter: { payloadCodecs: [foreign] },
    });
    const handle = await client.workflow.start('mineChain', {
      taskQueue: TASK_QUEUE,
      workflowId: `foreign-${randomUUID()}`,
      args: [{ difficulty: 1, blocks: 1 }],
    });
    const failure = await eventually(
      async () => {
        const { history } = await temporal.client.workflowService.getWorkflowExecutionHistory({
          namespace: temporal.namespace,
          execution: { workflowId: handle.workflowId },
        });
        return history?.events?.find((e) => e.workflowTaskFailedEventAttributes)
          ?.workflowTaskFailedEventAttributes?.failure;
      },
      30_000,
      'the workflow task to fail',
      200,
    );
    assert.match(failure?.message ?? '', new RegExp(`key id "${OTHER.id}"`));
    assert.equal(worker.child.exitCode, null, 'the worker is still running');
    await handle.terminate();
  });

  test('a tampered result: a clear error naming the key id, no plaintext fallback', async () => {
    const text = `tampered ${randomUUID()}`;
    const { json, error } = await call(catalog, 'echo_slowly', { text, ms: 0 });
    const failure =
      error ??
      (await (async () => {
        const id = String(json?.workflow_id);
        return eventually(
          async () => (await call(catalog, 'get_echo_slowly_result', { workflow_id: id })).error,
          30_000,
          'the tampered result to be read',
          200,
        );
      })());
    assert.equal(failure?.code, -32603);
    assert.match(failure?.message ?? '', new RegExp(`fails authentication under key id "${NEW.id}"`));
    assert.deepEqual(failure?.data, { reason: 'payload_undecryptable', keyId: NEW.id, cause: 'tampered' });
    assert.doesNotMatch(JSON.stringify(failure), new RegExp(text));
  });
});

// ---- the codec server -------------------------------------------------------------------------------

const codecUrl = (target: TestGateway, op: string) => new URL(`/codec/${op}`, target.origin);

interface CodecJson {
  payloads: { metadata: Record<string, string>; data: string }[];
  error: { reason: string; message: string; keyId?: string };
}

async function codecCall(
  target: TestGateway,
  op: 'encode' | 'decode',
  body: unknown,
  headers: Record<string, string> = { ...AUTH, origin: UI_ORIGIN, 'x-namespace': temporal.namespace },
) {
  const response = await fetch(codecUrl(target, op), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as CodecJson,
  };
}

const asJson = (payloads: Payload[]) => ({
  payloads: payloads.map((p) => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? []).toString('base64'),
  })),
});

describe('the codec server', () => {
  test('decodes the payloads of a run as the Web UI asks, with CORS for its origin', async () => {
    const { workflowId, secret } = await minedRun();
    const sealed = await encryptedPayloads(workflowId);
    const { status, headers, json } = await codecCall(gateway, 'decode', asJson(sealed));
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(headers.get('access-control-allow-origin'), UI_ORIGIN);
    assert.equal(headers.get('access-control-allow-credentials'), 'true');
    assert.equal(json.payloads.length, sealed.length);
    const plain = json.payloads.map((p: { metadata: Record<string, string>; data: string }) => ({
      encoding: Buffer.from(p.metadata.encoding ?? '', 'base64').toString(),
      data: Buffer.from(p.data, 'base64').toString(),
    }));
    assert.ok(plain.every((p: { encoding: string }) => p.encoding === 'json/plain'));
    assert.ok(
      plain.some((p: { data: string }) => p.data.includes(secret)),
      'the argument decoded',
    );
  });

  test('encode then decode round-trips, and encode writes the current key id', async () => {
    const original = {
      payloads: [
        {
          metadata: { encoding: Buffer.from('json/plain').toString('base64') },
          data: Buffer.from('{"a":1}').toString('base64'),
        },
      ],
    };
    const encoded = await codecCall(gateway, 'encode', original);
    assert.equal(encoded.status, 200);
    const meta = encoded.json.payloads[0]?.metadata ?? {};
    assert.equal(Buffer.from(meta.encoding ?? '', 'base64').toString(), ENCRYPTED_ENCODING);
    assert.equal(Buffer.from(meta[KEY_ID_METADATA] ?? '', 'base64').toString(), OLD.id);
    const decoded = await codecCall(gateway, 'decode', encoded.json);
    assert.deepEqual(decoded.json, original);
  });

  test('a tampered or foreign payload: 400 naming the key id', async () => {
    const encoded = await codecCall(gateway, 'encode', {
      payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: 'e30=' }],
    });
    const sealed = encoded.json.payloads[0];
    assert.ok(sealed);
    const data = Buffer.from(sealed.data, 'base64');
    data[20] = (data[20] as number) ^ 0xff;
    sealed.data = data.toString('base64');
    const tampered = await codecCall(gateway, 'decode', encoded.json);
    assert.equal(tampered.status, 400);
    assert.equal(tampered.json.error.reason, 'payload_undecryptable');
    assert.equal(tampered.json.error.keyId, OLD.id);
    assert.match(tampered.json.error.message, new RegExp(`key id "${OLD.id}"`));
    sealed.metadata[KEY_ID_METADATA] = Buffer.from('k-unknown').toString('base64');
    const foreign = await codecCall(gateway, 'decode', encoded.json);
    assert.equal(foreign.status, 400);
    assert.equal(foreign.json.error.keyId, 'k-unknown');
    const other = await codecCall(gateway, 'decode', { payloads: [] }, { ...AUTH, 'x-namespace': 'billing' });
    assert.equal(other.status, 400);
    assert.equal(other.json.error.reason, 'namespace_mismatch');
    const malformed = await codecCall(gateway, 'decode', { payloads: [{ data: 'not base64!' }] });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json.error.reason, 'bad_request');
  });

  test('CORS preflight: allowed for the Web UI origin, refused for another', async () => {
    const preflight = (origin: string) =>
      fetch(codecUrl(gateway, 'decode'), {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,x-namespace',
        },
      });
    const ok = await preflight(UI_ORIGIN);
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get('access-control-allow-origin'), UI_ORIGIN);
    assert.match(ok.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(ok.headers.get('access-control-allow-headers') ?? '', /x-namespace/);
    assert.match(ok.headers.get('access-control-allow-headers') ?? '', /authorization/);
    const refused = await preflight('https://evil.example');
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    const post = await codecCall(
      gateway,
      'decode',
      { payloads: [] },
      { ...AUTH, origin: 'https://evil.example' },
    );
    assert.equal(post.status, 403);
    assert.equal(post.headers.get('access-control-allow-origin'), null);
  });

  test('authentication: refused without a token, with a wrong one, and for a principal not listed', async () => {
    const none = await codecCall(gateway, 'decode', { payloads: [] }, { origin: UI_ORIGIN });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('access-control-allow-origin'), UI_ORIGIN, 'the Web UI can read why');
    const wrong = await codecCall(
      gateway,
      'decode',
      { payloads: [] },
      { authorization: 'Bearer not-a-token-at-all' },
    );
    assert.equal(wrong.status, 401);
    const dev = await codecCall(
      gateway,
      'decode',
      { payloads: [] },
      { authorization: `Bearer ${DEV_TOKEN}` },
    );
    assert.equal(dev.status, 403);
    assert.equal(dev.json.error.reason, 'principal_refused');
    const ops = await codecCall(gateway, 'decode', { payloads: [] }, AUTH);
    assert.equal(ops.status, 200);
    assert.deepEqual(ops.json, { payloads: [] });
  });

  test('off unless configured: 404 on a gateway with the codec but no codec server', async () => {
    const response = await fetch(codecUrl(rotated, 'decode'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: '{"payloads":[]}',
    });
    assert.equal(response.status, 404);
  });

  test('a gateway that authenticates does not start a codec server without the principals who may use it', async () => {
    await assert.rejects(
      startGateway({
        temporalAddress: temporal.address,
        temporalNamespace: temporal.namespace,
        taskQueue: TASK_QUEUE,
        env: gatewayEnv(pair(OLD), OLD.id, { MCP_CODEC_SERVER: 'true', MCP_CODEC_CORS_ORIGINS: UI_ORIGIN }),
      }),
      /MCP_CODEC_PRINCIPALS/,
    );
  });

  test('without authentication (loopback gateway): local callers, and browsers of an allowed origin only', async () => {
    const local = await startGateway({
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
      env: { MCP_CODEC_KEYS: pair(OLD), MCP_CODEC_SERVER: 'true', MCP_CODEC_CORS_ORIGINS: UI_ORIGIN },
    });
    try {
      const { workflowId, secret } = await minedRun();
      const sealed = asJson(await encryptedPayloads(workflowId));
      const fromUi = await codecCall(local, 'decode', sealed, {
        origin: UI_ORIGIN,
        'x-namespace': temporal.namespace,
      });
      assert.equal(fromUi.status, 200);
      assert.ok(
        fromUi.json.payloads.some((p: { data: string }) =>
          Buffer.from(p.data, 'base64').toString().includes(secret),
        ),
      );
      // A local process (the Temporal CLI's --codec-endpoint) sends no Origin: the trust /mcp gives it.
      const cli = await codecCall(local, 'decode', sealed, {});
      assert.equal(cli.status, 200);
      assert.equal(cli.headers.get('access-control-allow-origin'), null);
      const otherPort = await codecCall(local, 'decode', sealed, { origin: 'http://localhost:9999' });
      assert.equal(otherPort.status, 403);
    } finally {
      await local.close();
    }
  });
});
