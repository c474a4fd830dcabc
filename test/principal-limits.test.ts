// What one principal may ask at once, against a real dev server: past MCP_MAX_STARTS_PER_SECOND a
// start is refused at once (start_rate_limit, naming the setting, nothing started) and one a moment
// later is served; past MCP_MAX_WAITS_PER_PRINCIPAL a call that would wait is refused at once
// (wait_limit, naming the setting, nothing started) while another principal's call waits as before.
// Three gateway processes with no count of them set admit the bounds between them, as Temporal
// counts the fleet; two stopped (a crash, a rolling update), the one left admits the whole bounds
// once the settling time the docs state has passed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { SETTLING_MS } from '../gateway/temporal/fleet.ts';
import { freePort } from '../launcher/free-port.ts';
import { type GatewayProcess, startGatewayProcess } from './support/gateway-process.ts';
import { startGateway, TEST_SERVER_SECRET, type TestGateway } from './support/gateway-server.ts';
import { type RpcAnswer, rpc, TASKS_CLIENT } from './support/mcp-http.ts';
import { scrape } from './support/metrics-scrape.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const TOKENS = {
  carol: 'carol-token-0123456789abcdef',
  dave: 'dave-token-0123456789abcdef01',
  erin: 'erin-token-0123456789abcdef01',
  frank: 'frank-token-0123456789abcdef0',
  grace: 'grace-token-0123456789abcdef0',
  heidi: 'heidi-token-0123456789abcdef0',
  ivan: 'ivan-token-0123456789abcdef012',
  judy: 'judy-token-0123456789abcdef012',
} as const;
const taskQueue = `nobody-limits-${process.pid}`;
let temporal: TestTemporal;
let dataDir: string;

before(async () => {
  temporal = await startTestTemporal();
  dataDir = mkdtempSync(join(tmpdir(), 'fleet-limits-'));
});

after(async () => {
  await temporal?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// Each test's gateway on a queue of its own: one just stopped would still count for a few seconds.
async function gatewayWith(
  env: Record<string, string>,
  waitBudgetMs: number,
  queue: string,
): Promise<TestGateway> {
  return startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: `${taskQueue}-${queue}`,
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
  const gateway = await gatewayWith({ MCP_MAX_STARTS_PER_SECOND: '2' }, 0, 'rate');
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
    'waits',
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

// The fleet, as users run it: gateway processes on one Temporal with no count of them set anywhere.
const FLEET_BOUNDS = { MCP_MAX_STARTS_PER_SECOND: '6', MCP_MAX_WAITS_PER_PRINCIPAL: '6' };
// Starts answer at once (this client's budget is 0); waits hold their Temporal long poll 8 s.
const WAITING_CLIENT = { ...TASKS_CLIENT, clientInfo: { name: 'gateway-test-waiting', version: '1.0.0' } };

async function fleetGateway(queue: string): Promise<GatewayProcess> {
  return startGatewayProcess(await freePort(), {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    TEMPORAL_TASK_QUEUE: queue,
    MCP_AUTH_TOKENS: Object.entries(TOKENS)
      .map(([principal, token]) => `${principal}:${token}`)
      .join(','),
    MCP_SERVER_SECRET: TEST_SERVER_SECRET,
    MCP_DATA_DIR: dataDir,
    MCP_WAIT_BUDGET_MS: '8000',
    MCP_CLIENT_WAIT_BUDGETS: `${TASKS_CLIENT.clientInfo.name}=0`,
    ...FLEET_BOUNDS,
  });
}

/** Polls a gateway's /metrics until it counts `gateways`, within the settling time the docs state. */
async function countedBy(gateway: GatewayProcess, gateways: number): Promise<number> {
  const from = performance.now();
  await eventually(
    async () =>
      (await scrape(gateway.origin)).get('mcp_gateway_fleet_gateways') === gateways ? true : undefined,
    SETTLING_MS,
    `${gateway.origin} counting ${gateways} gateways`,
  );
  return Math.round(performance.now() - from);
}

/**
 * `who`'s starts sent to every gateway without pause for `seconds` (a few at a time on each, more
 * than its share): how many started, and how many the bound allows in that time, for the whole
 * fleet (a second's worth at once, then the rate).
 */
async function sustained(gateways: GatewayProcess[], who: keyof typeof TOKENS, seconds: number) {
  const from = performance.now();
  const until = from + seconds * 1000;
  let started = 0;
  let sent = 0;
  const loop = async (gateway: GatewayProcess) => {
    while (performance.now() < until) {
      const answer = await rpc(
        gateway.url,
        'tools/call',
        { name: 'start_mining', arguments: { difficulty: 1, blocks: 1, data: `${who} ${sent++}` } },
        TASKS_CLIENT,
        { authorization: `Bearer ${TOKENS[who]}` },
      );
      if (answer.result?.taskId) started++;
      else {
        assert.equal(data(answer)?.reason, 'start_rate_limit', JSON.stringify(answer));
        assert.equal(data(answer)?.gateways, gateways.length > 1 ? gateways.length : undefined);
        const shared = gateways.length > 1 ? ` .*shared by the ${gateways.length} gateways serving now` : '';
        assert.match(answer.error?.message ?? '', new RegExp(`at most 6 runs a second${shared}`));
        assert.doesNotMatch(answer.error?.message ?? '', /REPLICAS/);
      }
    }
  };
  await Promise.all(gateways.flatMap((gateway) => [0, 1, 2, 3].map(() => loop(gateway))));
  const elapsedMs = performance.now() - from;
  return { started, sent, allowed: Math.floor(6 + (6 * elapsedMs) / 1000), elapsedMs: Math.round(elapsedMs) };
}

/** `perGateway` calls of `who`'s that wait, sent to each gateway: the refused ones, once the rest wait. */
async function waits(gateways: GatewayProcess[], who: keyof typeof TOKENS, perGateway: number) {
  const calls = gateways.flatMap((gateway, g) =>
    Array.from({ length: perGateway }, (_, i) =>
      rpc(
        gateway.url,
        'tools/call',
        { name: 'start_mining', arguments: { difficulty: 1, blocks: 1, data: `${who} wait ${g} ${i}` } },
        WAITING_CLIENT,
        { authorization: `Bearer ${TOKENS[who]}` },
      ),
    ),
  );
  // A refused call answers at once; a call that waits holds its wait 8 s (no worker polls the queue).
  const answered = await Promise.all(calls.map((call) => Promise.race([call, delay(4_000, undefined)])));
  const refused = answered.filter((answer): answer is RpcAnswer => answer?.error !== undefined);
  for (const refusal of refused) assert.equal(data(refusal)?.reason, 'wait_limit', JSON.stringify(refusal));
  await Promise.all(calls);
  return { waited: calls.length - refused.length, refused: refused.length };
}

test('three gateways with no count set admit the bounds between them; two stopped, the one left admits the whole bounds within the settling time', async () => {
  const queue = `fleet-limits-${process.pid}`;
  const fleet = await Promise.all([fleetGateway(queue), fleetGateway(queue), fleetGateway(queue)]);
  const [survivor, crashed, stopped] = fleet as [GatewayProcess, GatewayProcess, GatewayProcess];
  try {
    const joinedMs = Math.max(...(await Promise.all(fleet.map((gateway) => countedBy(gateway, 3)))));
    // Six starts a second of grace's, asked of all three for 3 s, more than each one's share.
    const three = await sustained(fleet, 'grace', 3);
    const waitsByThree = await waits(fleet, 'heidi', 4);
    // One gateway crashes, another is stopped as a rolling update stops it.
    const stoppedAt = performance.now();
    await Promise.all([crashed.stop('SIGKILL'), stopped.stop('SIGTERM')]);
    await countedBy(survivor, 1);
    const settledMs = Math.round(performance.now() - stoppedAt);
    const one = await sustained([survivor], 'ivan', 3);
    const waitsByOne = await waits([survivor], 'judy', 8);
    console.log(
      `fleet bounds (6 starts a second, 6 waits; load ${loadavg()[0]?.toFixed(2)}): ` +
        `three gateways admitted ${three.started} of ${three.sent} starts in ${three.elapsedMs} ms (the bound: ${three.allowed}) and ${waitsByThree.waited} of 12 waits ` +
        `(all three counted each other ${joinedMs} ms after starting); ` +
        `two stopped, the one left counted itself alone ${settledMs} ms later and admitted ` +
        `${one.started} of ${one.sent} starts in ${one.elapsedMs} ms (the bound: ${one.allowed}) and ${waitsByOne.waited} of 8 waits`,
    );
    // The fleet's bound, whichever gateway is asked, within 40% below it (a share refills
    // only while its gateway is asked); never each gateway's whole bound.
    for (const { started, allowed } of [three, one])
      assert.ok(started <= allowed && started >= 0.6 * allowed, `started ${started}, the bound ${allowed}`);
    assert.equal(waitsByThree.waited, 6);
    assert.equal(waitsByOne.waited, 6);
  } finally {
    await Promise.all(fleet.map((gateway) => gateway.stop().catch(() => {})));
  }
});
