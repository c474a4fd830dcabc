// What one principal may ask at once, against a real dev server: past MCP_MAX_STARTS_PER_SECOND a
// start is refused at once (start_rate_limit, naming the setting, nothing started) and one a moment
// later is served; past MCP_MAX_WAITS_PER_PRINCIPAL a call that would wait is refused at once
// (wait_limit, naming the setting, nothing started) while another principal's call waits as before.
// Two replicas sharing the bounds (MCP_GATEWAY_REPLICAS) admit them between them, not each.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import { type RpcAnswer, rpc, TASKS_CLIENT } from './support/mcp-http.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const TOKENS = {
  carol: 'carol-token-0123456789abcdef',
  dave: 'dave-token-0123456789abcdef01',
  erin: 'erin-token-0123456789abcdef01',
  frank: 'frank-token-0123456789abcdef0',
} as const;
const taskQueue = `nobody-limits-${process.pid}`;
let temporal: TestTemporal;

before(async () => {
  temporal = await startTestTemporal();
});

after(async () => {
  await temporal?.close();
});

async function gatewayWith(env: Record<string, string>, waitBudgetMs: number): Promise<TestGateway> {
  return startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue,
    waitBudgetMs,
    env: {
      MCP_AUTH_TOKENS: Object.entries(TOKENS)
        .map(([principal, token]) => `${principal}:${token}`)
        .join(','),
      ...env,
    },
  });
}

const start = (gateway: TestGateway, who: keyof typeof TOKENS, i: number) =>
  rpc(
    gateway.url,
    'tools/call',
    { name: 'start_mining', arguments: { difficulty: 1, blocks: 1, data: `${who} ${i}` } },
    TASKS_CLIENT,
    { authorization: `Bearer ${TOKENS[who]}` },
  );

const data = (answer: RpcAnswer) => answer.error?.data as Record<string, unknown> | undefined;

test('past MCP_MAX_STARTS_PER_SECOND a start is refused at once, naming the setting, and served once the second has passed', async () => {
  const gateway = await gatewayWith({ MCP_MAX_STARTS_PER_SECOND: '2' }, 0);
  try {
    const answers = await Promise.all([0, 1, 2].map((i) => start(gateway, 'carol', i)));
    const started = answers.filter((answer) => answer.result?.taskId);
    const refused = answers.filter((answer) => answer.error);
    assert.equal(started.length, 2, JSON.stringify(answers));
    const [refusal] = refused as [RpcAnswer];
    assert.equal(refusal.error?.code, -32000);
    assert.equal(data(refusal)?.reason, 'start_rate_limit');
    assert.equal(data(refusal)?.setting, 'MCP_MAX_STARTS_PER_SECOND');
    assert.match(refusal.error?.message ?? '', /MCP_MAX_STARTS_PER_SECOND.*nothing was started/);
    const retryAfterMs = Number(data(refusal)?.retryAfterMs);
    assert.ok(retryAfterMs > 0 && retryAfterMs <= 500, `retryAfterMs ${retryAfterMs}`);
    // Another principal has a bucket of its own.
    assert.ok((await start(gateway, 'dave', 0)).result?.taskId, "dave's start is served");
    await delay(retryAfterMs);
    assert.ok((await start(gateway, 'carol', 3)).result?.taskId, 'served once the wait it named has passed');
  } finally {
    await gateway.close();
  }
});

test('past MCP_MAX_WAITS_PER_PRINCIPAL a call that would wait is refused at once, naming the setting; another principal waits as before', async () => {
  // No worker polls the queue: every call waits its whole budget.
  const gateway = await gatewayWith(
    { MCP_MAX_WAITS_PER_PRINCIPAL: '2', MCP_MAX_STARTS_PER_SECOND: '0' },
    3_000,
  );
  try {
    const waiting = [0, 1].map((i) => start(gateway, 'erin', i));
    // Both calls hold their waits once both runs exist (a call holds its wait before it starts).
    await eventually(
      async () =>
        (await temporal.client.workflow.count('McpPrincipal = "erin"')).count === 2 ? true : undefined,
      10_000,
      "erin's two runs",
    );
    const sent = performance.now();
    const refusal = await start(gateway, 'erin', 2);
    const refusedMs = Math.round(performance.now() - sent);
    assert.equal(data(refusal)?.reason, 'wait_limit', JSON.stringify(refusal));
    assert.equal(data(refusal)?.setting, 'MCP_MAX_WAITS_PER_PRINCIPAL');
    assert.equal(refusal.error?.code, -32000);
    assert.ok(refusedMs < 500, `refused in ${refusedMs} ms`);
    const dave = start(gateway, 'dave', 0);
    for (const answer of await Promise.all([...waiting, dave]))
      assert.equal(answer.result?.resultType, 'task', JSON.stringify(answer));
    // The waits are released: erin's next call waits again.
    assert.equal((await start(gateway, 'erin', 3)).result?.resultType, 'task');
    const runs = await temporal.client.workflow.count('McpPrincipal = "erin"');
    assert.equal(runs.count, 3, 'the refused call started nothing');
  } finally {
    await gateway.close();
  }
});

test('two replicas with MCP_GATEWAY_REPLICAS=2 admit the bounds between them: starts and waits, whichever replica is asked', async () => {
  // No worker polls the queue: every call that waits holds its wait for its whole budget.
  const env = { MCP_GATEWAY_REPLICAS: '2', MCP_MAX_STARTS_PER_SECOND: '4', MCP_MAX_WAITS_PER_PRINCIPAL: '4' };
  const replicas = await Promise.all([gatewayWith(env, 0), gatewayWith(env, 0)]);
  const waiting = await Promise.all([gatewayWith(env, 5_000), gatewayWith(env, 5_000)]);
  try {
    // Four starts a second of carol's, asked of both replicas at once, four each: four start in all.
    const answers = await Promise.all(
      replicas.flatMap((gateway) => [0, 1, 2, 3].map((i) => start(gateway, 'carol', i))),
    );
    const started = answers.filter((answer) => answer.result?.taskId);
    assert.equal(started.length, 4, JSON.stringify(answers));
    for (const refusal of answers.filter((answer) => answer.error)) {
      assert.equal(data(refusal)?.reason, 'start_rate_limit');
      assert.equal(data(refusal)?.replicas, 2);
      assert.match(refusal.error?.message ?? '', /at most 4 runs a second .*MCP_GATEWAY_REPLICAS/);
    }
    // Four waits of frank's: two on each replica wait; a fifth, on either, is refused at once.
    const held = waiting.flatMap((gateway, g) => [0, 1].map((i) => start(gateway, 'frank', 10 * g + i)));
    await eventually(
      async () =>
        (await temporal.client.workflow.count('McpPrincipal = "frank"')).count === 4 ? true : undefined,
      10_000,
      "frank's four runs",
    );
    for (const gateway of waiting) {
      const refusal = await start(gateway, 'frank', 99);
      assert.equal(data(refusal)?.reason, 'wait_limit', JSON.stringify(refusal));
      assert.equal(data(refusal)?.limit, 4);
    }
    for (const answer of await Promise.all(held)) assert.equal(answer.result?.resultType, 'task');
  } finally {
    await Promise.all([...replicas, ...waiting].map((gateway) => gateway.close()));
  }
});
