// `docker compose up`, for real: the project's own docker-compose.yml and Dockerfile, unmodified, on
// a container engine, driven through the ports the stack publishes on 127.0.0.1 as a user would.
// Where no Docker engine answers, the engine is podman with its Docker-compatible API and the base
// images are built locally (scripts/compose-engine.sh, scripts/compose-images.sh). Not part of
// `npm test` (it builds images and takes minutes): `npm run test:compose`, which sets COMPOSE_TESTS=1.
// The figures (time from `up` to ready, cold and warm) go to COMPOSE_REPORT, default
// .data/compose-stack.json, and are printed.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pollUntil } from '../common/poll.ts';
import { freePort } from '../launcher/free-port.ts';
import type { ChainResult } from '../workflows/mining/types.ts';
import { ComposeProject, type PsEntry, ROOT, servicesReady } from './support/compose.ts';
import {
  type ComposeClient,
  calibrate,
  chainOf,
  composeClient,
  finished,
  generatedToken,
  TOKEN_FILE,
} from './support/compose-mcp.ts';
import { difficultyFor, type MinerSpeed } from './support/gateway-difficulty.ts';
import { structured } from './support/mcp-clients.ts';
import { rpc, TASKS_CLIENT } from './support/mcp-http.ts';

const REPORT = process.env.COMPOSE_REPORT || join(ROOT, '.data', 'compose-stack.json');
const HEALTHY_TIMEOUT_MS = 4 * 60_000;
/** A first build pulls nothing but installs every npm package: minutes on 2 cores. */
const STACK_TIMEOUTS = { upTimeoutMs: 15 * 60_000, readyTimeoutMs: HEALTHY_TIMEOUT_MS };
const TASK_TIMEOUT_MS = 3 * 60_000;
/** Short, so a few seconds of mining outlast it and become a task or a handle. */
const WAIT_BUDGET_MS = 3_000;

const skip = process.env.COMPOSE_TESTS === '1' ? false : 'the compose tests run with npm run test:compose';

/** The stack, with none of the caller's MCP_* settings (out of the box) and our own ports. */
const project = new ComposeProject({ name: process.env.COMPOSE_TEST_PROJECT || 'tmg-compose-test' });
const report: Record<string, unknown> = {};
let mcpUrl: URL;
let uiUrl: URL;
let token = '';
let client: ComposeClient;
let speed: MinerSpeed;

/** Every service of the default stack running, healthy: each of them has a health check. */
const stackReady = (entries: PsEntry[]) =>
  servicesReady(['temporal', 'gateway', 'worker'])(entries) && entries.every((e) => e.Health === 'healthy');

/** A 2025-11-25 client (start/poll), with the bearer token. */
async function connectPlain(): Promise<V1Client> {
  const plain = new V1Client({ name: 'compose-test-v1', version: '1.0.0' });
  await plain.connect(
    new V1Transport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return plain;
}

/** Polls get_mining_result while the run is `running`; its next answer then. */
function pollResult(plain: V1Client, workflow_id: string): Promise<Record<string, unknown>> {
  return pollUntil(
    async () => {
      const view = structured(
        await plain.callTool({ name: 'get_mining_result', arguments: { workflow_id } }),
      );
      return view.status === 'running' ? undefined : view;
    },
    { timeoutMs: TASK_TIMEOUT_MS, intervalMs: 500 },
  );
}

describe('docker compose up: the project stack on a real engine', { skip }, () => {
  before(async () => {
    // No Docker engine: podman's Docker API, and base images built from what this machine reaches.
    report.engine = await project.prepareEngine();
    const [mcpPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
    Object.assign(project.env, {
      MCP_PUBLISH: `127.0.0.1:${mcpPort}`,
      TEMPORAL_PUBLISH_PORT: String(temporalPort),
      TEMPORAL_UI_PUBLISH_PORT: String(uiPort),
      MCP_WAIT_BUDGET_MS: String(WAIT_BUDGET_MS),
    });
    mcpUrl = new URL(`http://127.0.0.1:${mcpPort}/mcp`);
    uiUrl = new URL(`http://127.0.0.1:${uiPort}/`);
    // Whatever an interrupted earlier run left.
    await project.compose(['down', '-v', '--remove-orphans'], 180_000);
  });

  after(async () => {
    if (process.env.COMPOSE_KEEP !== '1')
      await project.compose(['down', '-v', '--remove-orphans'], 180_000).catch(() => {});
    mkdirSync(dirname(REPORT), { recursive: true });
    writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`compose stack report (${REPORT}):\n${JSON.stringify(report, null, 2)}`);
  });

  test('up --build with no variables: every service healthy, two workers, each started once its dependency is healthy', async () => {
    const { ms, output, entries } = await project.upUntilReady(stackReady, mcpUrl, {
      build: true,
      ...STACK_TIMEOUTS,
    });
    report.upToReadyMs = { first: ms };
    assert.deepEqual(entries.map((e) => e.Service).sort(), ['gateway', 'temporal', 'worker', 'worker']);
    // Compose waited for Temporal's health check before it started the gateway and the workers.
    const lines = output.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const healthy = at(/temporal-1\s+Healthy/);
    assert.ok(healthy >= 0, `Compose reported Temporal healthy:\n${output}`);
    for (const name of ['gateway-1', 'worker-1', 'worker-2'])
      assert.ok(at(new RegExp(`${name}\\s+Started`)) > healthy, `${name} started after Temporal was healthy`);
  });

  test('out of the box: a generated token guards the published port, and the log says where it is', async () => {
    token = await generatedToken(project, 'gateway');
    client = composeClient(mcpUrl, token);

    const logs = (await project.compose(['logs', '--no-color', '--no-log-prefix', 'gateway'])).stdout;
    const messages = logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => String(JSON.parse(line).msg));
    // The gateway's first line names the bind it really has (Fastify's own lines list each address).
    const first = messages.find((m) => m.startsWith('gateway: '));
    assert.match(first ?? '', /^gateway: MCP on http:\/\/0\.0\.0\.0:3000\/mcp;/, 'the real bind');
    assert.ok(
      messages.some((m) => m.includes(`docker compose exec gateway cat ${TOKEN_FILE}`)),
      'the log says how to read the token',
    );
    assert.ok(!logs.includes(token), 'the token itself is never logged');

    const anonymous = await rpc(mcpUrl, 'tools/list', {});
    assert.equal(anonymous.httpStatus, 401);
    const wrong = await rpc(mcpUrl, 'tools/list', {}, TASKS_CLIENT, {
      authorization: `Bearer ${'x'.repeat(43)}`,
    });
    assert.equal(wrong.httpStatus, 401);
    const tools = await client.call('tools/list', {});
    assert.ok((tools.tools as { name: string }[]).some((t) => t.name === 'start_mining'));
  });

  test('tools/call inline, and as a task followed with tasks/get to its result', async () => {
    speed = await calibrate(client);
    report.hashesPerSecond = Math.round(speed.hashesPerSecond);

    const inline = await client.startMining({ difficulty: 8, blocks: 2, data: 'compose inline' });
    assert.equal(inline.resultType, 'complete');
    assert.equal(structured(inline).status, 'completed');

    const { taskId } = await client.longTask(speed, 8, 3, 'compose task');
    const task = await client.until(taskId, finished);
    assert.equal(task.status, 'completed');
    assert.equal(chainOf(task).blocks.length, 8);
    report.completedTask = taskId;
  });

  test('start/poll (2025-11-25 client): a running handle, polled with get_mining_result to completed', async () => {
    const client = await connectPlain();
    try {
      const args = { difficulty: difficultyFor(speed, 2), blocks: 10, data: 'compose start/poll' };
      const first = structured(await client.callTool({ name: 'start_mining', arguments: args }));
      assert.equal(first.status, 'running');
      assert.match(String(first.next), /get_mining_result/);
      const done = await pollResult(client, String(first.workflow_id));
      assert.equal(done.status, 'completed');
      assert.equal((done.result as ChainResult).blocks.length, 10);
    } finally {
      await client.close();
    }
  });

  test('an approval: input_required, answered with respond_to_mining, then published', async () => {
    const client = await connectPlain();
    try {
      const args = { difficulty: 6, blocks: 2, data: 'compose approval', require_approval: true };
      const started = structured(await client.callTool({ name: 'start_mining', arguments: args }));
      const workflow_id = String(started.workflow_id);
      // The chain is mined before the approval is asked for: on a slow machine, past the budget.
      const first = started.status === 'running' ? await pollResult(client, workflow_id) : started;
      assert.equal(first.status, 'input_required');
      const [key] = Object.keys(first.input_requests as Record<string, unknown>);
      assert.ok(key, 'one input request');
      const answered = structured(
        await client.callTool({
          name: 'respond_to_mining',
          arguments: { workflow_id, key, action: 'accept', content: { approve: true } },
        }),
      );
      const done = answered.status === 'running' ? await pollResult(client, workflow_id) : answered;
      assert.equal(done.status, 'completed');
      assert.equal((done.result as ChainResult).publication?.status, 'published');
    } finally {
      await client.close();
    }
  });

  test('the Web UI answers on its port; /metrics counts the calls made', async () => {
    const page = await fetch(uiUrl);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    const namespaces = await fetch(new URL('/api/v1/namespaces/default', uiUrl));
    assert.equal(namespaces.status, 200, 'the UI reaches Temporal');

    const metrics = await fetch(new URL('/metrics', mcpUrl));
    assert.equal(metrics.status, 200);
    const text = await metrics.text();
    const calls = [
      ...text.matchAll(/^mcp_gateway_tool_calls_total\{[^}]*tool="start_mining"[^}]*\} (\d+)/gm),
    ];
    assert.ok(
      calls.reduce((sum, m) => sum + Number(m[1]), 0) >= 7,
      `the start_mining calls above are counted:\n${text
        .split('\n')
        .filter((line) => line.startsWith('mcp_gateway_tool_calls_total'))
        .join('\n')}`,
    );
  });

  test('docker compose restart worker while a task runs: the task completes, every block once', async () => {
    const { taskId } = await client.longTask(speed, 8, 2, 'compose worker restart');
    const restart = Date.now();
    await project.compose(['restart', 'worker'], 120_000);
    report.workerRestartMs = Date.now() - restart;
    const task = await client.until(taskId, finished);
    assert.equal(task.status, 'completed');
    assert.deepEqual(
      chainOf(task).blocks.map((b) => b.index),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    report.completedTask = taskId;
    await project.until(stackReady, HEALTHY_TIMEOUT_MS, 'the stack healthy');
  });

  test('down, then up again: the volumes hold; a task started before is still there and finishes', async () => {
    const { taskId: running } = await client.longTask(speed, 8, 2, 'compose down and up');
    await project.compose(['down'], 180_000);
    assert.deepEqual(await project.ps(true), [], 'down removed the containers');
    const before = token;
    const { ms } = await project.upUntilReady(stackReady, mcpUrl, { build: false, ...STACK_TIMEOUTS });
    (report.upToReadyMs as Record<string, number>).again = ms;
    assert.equal(
      await generatedToken(project, 'gateway'),
      before,
      'the same token: it lives on the gateway volume',
    );

    const old = await client.call('tasks/get', { taskId: String(report.completedTask) });
    assert.equal(old.status, 'completed', 'a task finished before down');
    const resumed = await client.until(running, finished);
    assert.equal(resumed.status, 'completed', 'the task that was running at down');
    assert.equal(chainOf(resumed).blocks.length, 8);
  });

  test('down -v leaves nothing running and no volume or network of the project', async () => {
    await project.compose(['down', '-v'], 180_000);
    assert.deepEqual(await project.ps(true), []);
    assert.deepEqual(await project.leftovers(), { container: '', volume: '', network: '' });
  });
});
