// A dead Temporal said at once, a slow one waited for: with the dev server killed, a call answers
// within 2 s (not at the 10 s call deadline); the first start after the kill, whose connection was
// refused, and once the gateway knows (its first failed call, or /readyz) every start and poll,
// answer temporal_unavailable, "nothing was started"; the first call
// after the server is back is served. Through a proxy that holds Temporal's answers back, a call
// waits as long as its deadline allows and is answered. Prints the times it measured.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { DevServer } from '../launcher/dev-server.ts';
import { freePort } from '../launcher/free-port.ts';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { type RpcAnswer, rpc, TASKS_CLIENT } from './support/mcp-http.ts';
import { startTcpProxy } from './support/tcp-proxy.ts';

/** A queue no worker polls: the runs stay Running, which is all these calls need. */
const QUEUE = `nobody-down-${process.pid}`;
/** The call deadline a gateway would otherwise take to say Temporal is down. */
const CALL_TIMEOUT_MS = 10_000;

let dataDir: string;
let port: number;
let server: DevServer;
let gateway: TestGateway;
const figures: string[] = [];

const startServer = () => DevServer.start({ port, dbFilename: join(dataDir, 'temporal.db') });

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'temporal-down-'));
  port = await freePort();
  server = await startServer();
  gateway = await startGateway({
    temporalAddress: `127.0.0.1:${port}`,
    taskQueue: QUEUE,
    waitBudgetMs: 0,
    temporalTimeoutMs: CALL_TIMEOUT_MS,
    // The running-task cap as deployed (on): a start is first a start in a slot.
    env: { MCP_MAX_RUNNING_TASKS: '100' },
  });
});

after(async () => {
  await gateway?.close();
  await server?.stop();
  console.log(`temporal-down figures:\n${figures.map((f) => `  ${f}`).join('\n')}`);
  rmSync(dataDir, { recursive: true, force: true });
});

/** One call, and how long its answer took. */
async function timedCall(method: string, params: Record<string, unknown>, url = gateway.url) {
  const sent = performance.now();
  const answer = await rpc(url, method, params, TASKS_CLIENT);
  return { answer, ms: Math.round(performance.now() - sent) };
}

const start = (url?: URL) =>
  timedCall('tools/call', { name: 'start_mining', arguments: { difficulty: 8, blocks: 1 } }, url);

const reason = (answer: RpcAnswer) => (answer.error?.data as { reason?: string } | undefined)?.reason;

test('Temporal killed: a start and a poll answer temporal_unavailable within 2 s; the first call after restart is served', async () => {
  const created = await start();
  const taskId = String(created.answer.result?.taskId);
  assert.equal(created.answer.result?.resultType, 'task', JSON.stringify(created.answer));
  await server.stop();

  // The first call after the kill: it finds out, in flight; the connection was refused, so nothing
  // was sent and the start is safe to repeat.
  const first = await start();
  assert.equal(reason(first.answer), 'temporal_unavailable', JSON.stringify(first.answer));
  assert.equal((first.answer.error?.data as { started?: boolean } | undefined)?.started, false);
  assert.ok(first.ms < 2_000, `the first start after the kill answered in ${first.ms} ms`);
  const ready = await fetch(new URL('/readyz', gateway.origin));
  assert.equal(ready.status, 503);

  const starts = [];
  for (let i = 0; i < 3; i++) {
    const { answer, ms } = await start();
    assert.equal(reason(answer), 'temporal_unavailable', JSON.stringify(answer));
    assert.equal((answer.error?.data as { started?: boolean } | undefined)?.started, false);
    assert.ok(ms < 2_000, `a start with Temporal known down answered in ${ms} ms`);
    starts.push(ms);
  }
  const poll = await timedCall('tasks/get', { taskId });
  assert.equal(reason(poll.answer), 'temporal_unavailable', JSON.stringify(poll.answer));
  assert.ok(poll.ms < 2_000, `a poll with Temporal known down answered in ${poll.ms} ms`);

  server = await startServer();
  const back = await start();
  assert.equal(
    back.answer.result?.resultType,
    'task',
    `refused after the restart: ${JSON.stringify(back.answer)}`,
  );
  const polled = await timedCall('tasks/get', { taskId });
  assert.equal(polled.answer.result?.status, 'working', JSON.stringify(polled.answer));
  figures.push(
    `Temporal killed: first start ${first.ms} ms (${reason(first.answer)}), then starts ${starts.join(' / ')} ms ` +
      `and a poll ${poll.ms} ms (temporal_unavailable); after restart a start in ${back.ms} ms, served`,
  );
});

test('a Temporal that answers late is waited for, not refused early', async () => {
  const proxy = await startTcpProxy(`127.0.0.1:${port}`);
  const slow = await startGateway({
    temporalAddress: proxy.address,
    taskQueue: QUEUE,
    waitBudgetMs: 0,
    temporalTimeoutMs: CALL_TIMEOUT_MS,
    env: { MCP_MAX_RUNNING_TASKS: '100' },
  });
  try {
    assert.ok((await start(slow.url)).answer.result, 'served through the proxy');
    proxy.stall();
    const held = start(slow.url);
    // The answers held back this long: longer than a refusal of a Temporal known down may take.
    await delay(3_000);
    proxy.resume();
    const { answer, ms } = await held;
    assert.equal(answer.result?.resultType, 'task', JSON.stringify(answer));
    assert.ok(ms >= 3_000, `answered in ${ms} ms`);
    figures.push(`Temporal answering 3 s late: a start answered in ${ms} ms, served`);
  } finally {
    await slow.close();
    await proxy.close();
  }
});
