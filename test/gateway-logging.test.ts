// The gateway's logs: JSON lines in which every line about a task carries its task id, and no
// secret (Authorization header, bearer token, token-like query value or field) is ever printed;
// for people (a terminal, or LOG_FORMAT=pretty), one readable line per request through pino-pretty.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { pollUntil } from '../common/poll.ts';
import { buildApp } from '../gateway/app.ts';
import { readableLogStream } from '../gateway/http/log-format.ts';
import { logFormat, scrubSecrets } from '../gateway/http/logging.ts';
import { loadSettings } from '../gateway/settings/index.ts';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import { PLAIN_CLIENT, rpc, rpcResult } from './support/mcp-http.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

const SECRET = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

type Line = Record<string, unknown>;

let lines: Line[] = [];
let app: FastifyInstance;
let origin: string;
let url: URL;
let temporal: TestTemporal;
/** The same gateway with readable logs (no colours), and what it printed. */
let printed: string[] = [];
let prettyApp: FastifyInstance;
let prettyOrigin: string;
let prettyUrl: URL;

before(async () => {
  // A real dev server and no worker: the runs these tests start stay running.
  temporal = await startTestTemporal();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text));
      done();
    },
  });
  const config = await loadSettings({
    MCP_PORT: '0',
    MCP_WAIT_BUDGET_MS: '0',
    MCP_QUERY_TIMEOUT_MS: '300',
    TEMPORAL_TASK_QUEUE: `gateway-logging-${process.pid}`,
  });
  const backend = () =>
    new TemporalBackend(temporal.client, {
      namespace: temporal.namespace,
      callTimeoutMs: config.temporalTimeoutMs,
      queryTimeoutMs: config.queryTimeoutMs,
      serverSecret: Buffer.from('logging-test-server-secret-0123456789abcdef'),
      fleetTaskQueue: `gateway-logging-${process.pid}-gateways`,
    });
  app = buildApp(config, { backend: backend(), logger: { level: 'trace', stream } });
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
  url = new URL('/mcp', origin);
  const screen = { write: (text: string) => printed.push(text) };
  prettyApp = buildApp(config, {
    backend: backend(),
    logger: { level: 'info', stream: readableLogStream(screen, false) },
  });
  prettyOrigin = await prettyApp.listen({ host: '127.0.0.1', port: 0 });
  prettyUrl = new URL('/mcp', prettyOrigin);
});

after(async () => {
  await app?.close();
  await prettyApp?.close();
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

/** A tasks/get as plain HTTP, with an Mcp-Name header only when `mcpName` is given. */
async function rawTasksGet(target: URL, taskId: string, mcpName?: string): Promise<void> {
  const answer = await fetch(target, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tasks/get',
      ...(mcpName === undefined ? {} : { 'mcp-name': mcpName }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      params: {
        taskId,
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
    await rawTasksGet(url, 'mine-nobody', 'mine-nobody');
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

  test('scrubSecrets removes bearer tokens and token-like query values, and nothing else', async () => {
    assert.equal(scrubSecrets(`Authorization: Bearer ${SECRET}`), 'Authorization: Bearer [redacted]');
    assert.equal(
      scrubSecrets(`/mcp?api_key=${SECRET}&x=1&token=${SECRET}`),
      '/mcp?api_key=[redacted]&x=1&token=[redacted]',
    );
    assert.equal(scrubSecrets('/mcp?workflow=mine-1'), '/mcp?workflow=mine-1');
  });
});

describe('log format', () => {
  test('pretty on a terminal, JSON otherwise; LOG_FORMAT forces either', async () => {
    assert.equal(logFormat({}, true), 'pretty');
    assert.equal(logFormat({}, false), 'json');
    assert.equal(logFormat({ LOG_FORMAT: 'json' }, true), 'json');
    assert.equal(logFormat({ LOG_FORMAT: 'pretty' }, false), 'pretty');
    assert.equal(logFormat({ LOG_FORMAT: ' Pretty ' }, false), 'pretty');
    assert.equal(logFormat({ LOG_FORMAT: '' }, false), 'json');
    assert.throws(() => logFormat({ LOG_FORMAT: 'yaml' }, true), /LOG_FORMAT must be "json" or "pretty"/);
  });
});

describe('readable logs (LOG_FORMAT=pretty)', () => {
  const TIME = '\\d\\d:\\d\\d:\\d\\d\\.\\d{3}';

  /** What the pretty gateway printed while `run` ran, once `settled` holds for it. */
  async function printedBy(
    run: () => Promise<unknown>,
    settled: (text: string) => boolean,
  ): Promise<string[]> {
    printed = [];
    await run();
    // Past the deadline the lines are returned as they are: the caller's assertions say what is missing.
    await pollUntil(() => (settled(printed.join('')) ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 20,
    }).catch(() => {});
    return printed.join('').split('\n').filter(Boolean);
  }

  test('one line per tools/call: time, level, method, tool, task id, outcome and ms', async () => {
    let taskId = '';
    const shown = await printedBy(
      async () => {
        const task = await rpcResult(prettyUrl, 'tools/call', {
          name: 'start_mining',
          arguments: { difficulty: 12, blocks: 2 },
        });
        taskId = String(task.taskId);
      },
      (text) => text.includes(taskId),
    );
    assert.equal(shown.length, 1, shown.join('\n'));
    assert.match(
      shown[0] as string,
      new RegExp(`^${TIME} INFO: tools/call start_mining ${taskId} \u2192 task \\d+ ms$`),
    );
  });

  test('tasks/* lines carry the task, the outcome (and status) and ms; refusals say why', async () => {
    const { taskId } = await rpcResult(prettyUrl, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 12, blocks: 2 },
    });
    const shown = await printedBy(
      async () => {
        await rpcResult(prettyUrl, 'tasks/get', { taskId });
        await rpc(prettyUrl, 'tasks/get', { taskId: 'mine-nobody' });
      },
      (text) => text.includes('mine-nobody'),
    );
    assert.equal(shown.length, 2, shown.join('\n'));
    assert.match(
      shown[0] as string,
      new RegExp(`^${TIME} INFO: tasks/get ${taskId} \u2192 ok \\(working\\) \\d+ ms$`),
    );
    assert.match(
      shown[1] as string,
      new RegExp(`^${TIME} INFO: tasks/get refused mine-nobody \u2192 not_found \\d+ ms: .+`),
    );
  });

  test('other requests: method, URL, MCP method and status in one line; successful probes are left out', async () => {
    const shown = await printedBy(
      async () => {
        await rpc(prettyUrl, 'tools/list', {});
        for (const path of ['/healthz', '/metrics', '/nowhere'])
          await (await fetch(new URL(path, prettyOrigin))).text();
      },
      (text) => text.includes('/nowhere'),
    );
    assert.equal(shown.length, 2, shown.join('\n'));
    assert.match(shown[0] as string, new RegExp(`^${TIME} INFO: POST /mcp tools/list \u2192 200 \\d+ ms$`));
    assert.match(shown[1] as string, new RegExp(`^${TIME} INFO: GET /nowhere \u2192 404 \\d+ ms$`));
  });

  test('no secrets and no control characters reach the terminal', async () => {
    const EVIL = 'mine-\u001b[31mred\u0007';
    const shown = await printedBy(
      async () => {
        const headers = { authorization: `Bearer ${SECRET}` };
        await (await fetch(new URL(`/nowhere?access_token=${SECRET}`, prettyOrigin), { headers })).text();
        // Control characters in a request body: a run id the tools/call line shows, and a task id
        // the refusal's error message quotes (its Mcp-Name header names another task).
        await rpc(prettyUrl, 'tools/call', { name: 'get_mining_result', arguments: { workflow_id: EVIL } });
        await rawTasksGet(prettyUrl, EVIL, 'mine-other');
        prettyApp.log.info({ token: SECRET }, `got Bearer ${SECRET}`);
      },
      (text) => text.includes('got Bearer'),
    );
    const text = shown.join('\n');
    assert.ok(!text.includes(SECRET), `a secret was printed:\n${text}`);
    assert.match(text, /GET \/nowhere\?access_token=\[redacted\] \u2192 404/);
    assert.match(text, /INFO: got Bearer \[redacted\] \{"token":"\[redacted\]"\}/);
    assert.match(text, /tools\/call get_mining_result mine-\?\[31mred\? \u2192/);
    assert.match(text, /WARN: mcp request error/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them
    assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, JSON.stringify(text));
  });

  test('colours when asked for, none otherwise', async () => {
    const out: string[] = [];
    const line = `${JSON.stringify({ level: 30, time: Date.now(), msg: 'tools/call', tool: 't', outcome: 'error', ms: 1 })}\n`;
    readableLogStream({ write: (text) => out.push(text) }, true).write(line);
    readableLogStream({ write: (text) => out.push(text) }, false).write(line);
    const ESC = String.fromCharCode(27);
    assert.ok(out[0]?.includes(`${ESC}[31merror`), JSON.stringify(out[0]));
    assert.ok(!out[1]?.includes(ESC), JSON.stringify(out[1]));
  });
});
