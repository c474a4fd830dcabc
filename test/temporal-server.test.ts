// What the gateway needs from the Temporal server it meets, on the dev server every other file uses
// (the CLI v1.5.1's Temporal 1.29.1, fairness on as `npm start` runs it): the start check reads its
// version and finds nothing lacking, and matching honours the keys the gateway gives runs. The
// cluster (test/cluster.test.ts) checks the same on Temporal 1.32.2.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runPriority } from '../gateway/temporal/fairness.ts';
import { freePort } from '../launcher/free-port.ts';
import { dispatchOrder } from './support/dispatch-order.ts';
import { type GatewayProcess, startGatewayProcess } from './support/gateway-process.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

let temporal: TestTemporal;
let gateway: GatewayProcess | undefined;

before(async () => {
  temporal = await startTestTemporal();
});

after(async () => {
  await gateway?.stop();
  await temporal?.close();
});

test('the start check: the gateway says it met Temporal 1.29.1 (the CLI v1.5.1) and that it lacks nothing', async () => {
  gateway = await startGatewayProcess(await freePort(), {
    ...temporal.env,
    MCP_SERVER_SECRET: TEST_SERVER_SECRET,
  });
  // The check runs the first time Temporal answers the readiness check.
  assert.equal((await fetch(new URL('/readyz', gateway.origin))).status, 200);
  await eventually(
    async () => (gateway?.output().includes('gateway: Temporal server 1.29.1') ? true : undefined),
    10_000,
    'the line naming the server',
  );
  assert.doesNotMatch(gateway.output(), /lacks what the gateway uses/);
});

test('fairness keys honoured: bob’s run is handed out among the first, not behind alice’s backlog of 8', async () => {
  const order = await dispatchOrder(temporal.client, [
    ...Array.from({ length: 8 }, () => ({ label: 'alice', priority: runPriority('alice') })),
    { label: 'bob', priority: runPriority('bob') },
  ]);
  assert.ok(
    order.indexOf('bob') <= 2,
    `first come, first served would hand bob's out last: ${order.join(' ')}`,
  );
});

test('priority keys honoured: a run of priority 1 is handed out before a backlog of priority 5', async () => {
  const order = await dispatchOrder(temporal.client, [
    ...Array.from({ length: 5 }, () => ({ label: 'later', priority: runPriority('alice', undefined, 5) })),
    { label: 'first', priority: runPriority('alice', undefined, 1) },
  ]);
  assert.equal(order[0], 'first', order.join(' '));
});
