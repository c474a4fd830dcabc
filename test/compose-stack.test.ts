// `docker compose up`, for real: the project's own docker-compose.yml and Dockerfile, unmodified, on
// a container engine, driven through the ports the stack publishes on 127.0.0.1 as a user would.
// Where no Docker engine answers, the engine is podman with its Docker-compatible API and the base
// images are built locally (scripts/compose-engine.sh, scripts/compose-images.sh). Not part of
// `npm test` (it builds images and takes minutes): `npm run test:compose`, which sets COMPOSE_TESTS=1.
// The figures (time from `up` to ready, cold and warm) go to COMPOSE_REPORT, default
// .data/compose-stack.json, and are printed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pollUntil } from '../common/poll.ts';
import { freePort } from '../launcher/free-port.ts';
import type { ChainResult } from '../workflows/mining/types.ts';
import { difficultyFor, type MinerSpeed, measuredSpeed } from './support/gateway-difficulty.ts';
import { structured } from './support/mcp-clients.ts';
import { rpc, TASKS_CLIENT } from './support/mcp-http.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPORT = process.env.COMPOSE_REPORT || join(ROOT, '.data', 'compose-stack.json');
const PROJECT = process.env.COMPOSE_TEST_PROJECT || 'tmg-compose-test';
const TOKEN_FILE = '/home/node/gateway-data/auth-tokens';
/** A first build pulls nothing but installs every npm package: minutes on 2 cores. */
const UP_TIMEOUT_MS = 15 * 60_000;
const HEALTHY_TIMEOUT_MS = 4 * 60_000;
const TASK_TIMEOUT_MS = 3 * 60_000;
/** Short, so a few seconds of mining outlast it and become a task or a handle. */
const WAIT_BUDGET_MS = 3_000;

const skip = process.env.COMPOSE_TESTS === '1' ? false : 'the compose tests run with npm run test:compose';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The stack's environment: none of the caller's MCP_* settings (out of the box), our own ports. */
const stackEnv: Record<string, string> = {};
const report: Record<string, unknown> = {};
let mcpUrl: URL;
let uiUrl: URL;
let token = '';
let speed: MinerSpeed;

function run(command: string, args: string[], timeoutMs: number): Promise<Run> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('MCP_')) env[name] = value;
  Object.assign(env, stackEnv);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')}: no end within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `docker compose -p <test project> …`, which must succeed. */
async function compose(args: string[], timeoutMs = 120_000): Promise<Run> {
  const result = await run('docker', ['compose', '-p', PROJECT, ...args], timeoutMs);
  if (result.code !== 0)
    throw new Error(
      `docker compose ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`,
    );
  return result;
}

interface PsEntry {
  Service: string;
  Name: string;
  State: string;
  Health: string;
}

async function ps(all = false): Promise<PsEntry[]> {
  const { stdout } = await compose(['ps', ...(all ? ['--all'] : []), '--format', 'json']);
  const text = stdout.trim();
  if (!text) return [];
  // One JSON object per line (Compose v2.21 and later), or one array.
  return text.startsWith('[') ? JSON.parse(text) : text.split('\n').map((line) => JSON.parse(line));
}

/** Waits until every service of the default stack runs healthy; the containers then. */
function allHealthy(): Promise<PsEntry[]> {
  return pollUntil(
    async () => {
      const entries = await ps();
      const services = new Set(entries.map((e) => e.Service));
      const complete = ['temporal', 'gateway', 'worker'].every((s) => services.has(s));
      return complete && entries.every((e) => e.State === 'running' && e.Health === 'healthy')
        ? entries
        : undefined;
    },
    {
      timeoutMs: HEALTHY_TIMEOUT_MS,
      intervalMs: 500,
      timeoutError: (err) =>
        new Error(
          `the stack was not healthy within ${HEALTHY_TIMEOUT_MS} ms (${(err as Error)?.message ?? ''})`,
        ),
    },
  );
}

/** `docker compose up -d` (with --build or not) until every service is healthy: the time taken. */
async function upUntilHealthy(build: boolean): Promise<{ ms: number; output: string; entries: PsEntry[] }> {
  const started = Date.now();
  const up = await compose(['up', ...(build ? ['--build'] : []), '-d'], UP_TIMEOUT_MS);
  const entries = await allHealthy();
  await pollUntil(async () => ((await fetch(new URL('/readyz', mcpUrl))).ok ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  return { ms: Date.now() - started, output: `${up.stdout}\n${up.stderr}`, entries };
}

const auth = () => ({ authorization: `Bearer ${token}` });

async function call(method: string, params: Record<string, unknown>, framing = TASKS_CLIENT) {
  const answer = await rpc(mcpUrl, method, params, framing, auth());
  if (!answer.result)
    throw new Error(`${method} answered ${answer.httpStatus} ${JSON.stringify(answer.error)}`);
  return answer.result;
}

function startMining(args: Record<string, unknown>) {
  return call('tools/call', { name: 'start_mining', arguments: args });
}

/** Polls tasks/get until the task leaves `working` (or reaches `status`); the task then. */
function taskUntil(
  taskId: string,
  done: (task: Record<string, unknown>) => boolean,
  timeoutMs = TASK_TIMEOUT_MS,
) {
  return pollUntil(
    async () => {
      const task = await call('tasks/get', { taskId });
      return done(task) ? task : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

const finished = (task: Record<string, unknown>) =>
  !['working', 'input_required'].includes(String(task.status));

function chainOf(task: Record<string, unknown>): ChainResult {
  return structured(task.result).result as ChainResult;
}

/** A 2025-11-25 client (start/poll), with the bearer token. */
async function connectPlain(): Promise<V1Client> {
  const client = new V1Client({ name: 'compose-test-v1', version: '1.0.0' });
  await client.connect(new V1Transport(mcpUrl, { requestInit: { headers: auth() } }));
  return client;
}

/** Polls get_mining_result while the run is `running`; its next answer then. */
function pollResult(client: V1Client, workflow_id: string): Promise<Record<string, unknown>> {
  return pollUntil(
    async () => {
      const view = structured(
        await client.callTool({ name: 'get_mining_result', arguments: { workflow_id } }),
      );
      return view.status === 'running' ? undefined : view;
    },
    { timeoutMs: TASK_TIMEOUT_MS, intervalMs: 500 },
  );
}

/** Starts a chain that outlasts the wait budget and waits until a block has reported progress. */
async function startLongTask(blocks: number, secondsPerBlock: number, data: string) {
  const created = await startMining({ difficulty: difficultyFor(speed, secondsPerBlock), blocks, data });
  assert.equal(created.resultType, 'task', `${data}: outlasts the wait budget`);
  const taskId = String(created.taskId);
  await taskUntil(taskId, (t) => /[1-9][\d,]* hashes tried/.test(String(t.statusMessage ?? '')), 60_000);
  return taskId;
}

describe('docker compose up: the project stack on a real engine', { skip }, () => {
  before(async () => {
    // No Docker engine: podman's Docker API, and base images built from what this machine reaches.
    const docker = await run('docker', ['version', '--format', '{{json .Server}}'], 30_000);
    if (process.env.DOCKER_HOST === undefined && docker.code !== 0) {
      const engine = await run('bash', ['scripts/compose-engine.sh'], 30 * 60_000);
      assert.equal(engine.code, 0, engine.stderr);
      stackEnv.DOCKER_HOST = engine.stdout.trim().split('\n').at(-1) ?? '';
    }
    const server = await run('docker', ['version', '--format', '{{json .Server}}'], 30_000);
    assert.equal(server.code, 0, `a container engine answers: ${server.stderr}`);
    report.engine = server.stdout.includes('Podman') ? 'podman' : 'docker';
    if (report.engine === 'podman') {
      // Podman's API has no BuildKit: Compose uses the engine's own builder.
      stackEnv.DOCKER_BUILDKIT = '0';
      const images = await run('bash', ['scripts/compose-images.sh'], 30 * 60_000);
      assert.equal(images.code, 0, images.stderr);
    }
    const [mcpPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
    Object.assign(stackEnv, {
      MCP_PUBLISH: `127.0.0.1:${mcpPort}`,
      TEMPORAL_PUBLISH_PORT: String(temporalPort),
      TEMPORAL_UI_PUBLISH_PORT: String(uiPort),
      MCP_WAIT_BUDGET_MS: String(WAIT_BUDGET_MS),
    });
    mcpUrl = new URL(`http://127.0.0.1:${mcpPort}/mcp`);
    uiUrl = new URL(`http://127.0.0.1:${uiPort}/`);
    // Whatever an interrupted earlier run left.
    await compose(['down', '-v', '--remove-orphans'], 180_000);
  });

  after(async () => {
    if (process.env.COMPOSE_KEEP !== '1')
      await compose(['down', '-v', '--remove-orphans'], 180_000).catch(() => {});
    mkdirSync(dirname(REPORT), { recursive: true });
    writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`compose stack report (${REPORT}):\n${JSON.stringify(report, null, 2)}`);
  });

  test('up --build with no variables: every service healthy, two workers, each started once its dependency is healthy', async () => {
    const { ms, output, entries } = await upUntilHealthy(true);
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
    const file = (await compose(['exec', '-T', 'gateway', 'cat', TOKEN_FILE])).stdout.trim();
    const match = /^user:([A-Za-z0-9_-]{43})$/.exec(file);
    assert.ok(match, `one principal:token line, 256 random bits: ${file.replace(/:.*/, ':…')}`);
    token = match[1] as string;

    const logs = (await compose(['logs', '--no-color', '--no-log-prefix', 'gateway'])).stdout;
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
    const tools = await call('tools/list', {});
    assert.ok((tools.tools as { name: string }[]).some((t) => t.name === 'start_mining'));
  });

  test('tools/call inline, and as a task followed with tasks/get to its result', async () => {
    // The miner's speed in these containers, so the long runs below last the time they are meant
    // to; a first short chain warms the workers up (followed to its end, whichever shape it takes).
    const follow = async (answer: Record<string, unknown>) =>
      answer.resultType === 'task'
        ? chainOf(await taskUntil(String(answer.taskId), finished))
        : (structured(answer).result as ChainResult);
    await follow(await startMining({ difficulty: 14, blocks: 2 }));
    // The faster of two runs: a busy host slows one down, and a speed guessed low would make the
    // long chains below finish within the budget once the host is quiet again.
    const runs = [await follow(await startMining({ difficulty: 18, blocks: 3 }))];
    runs.push(await follow(await startMining({ difficulty: 18, blocks: 3, data: 'calibration' })));
    speed = { hashesPerSecond: Math.max(...runs.map((r) => measuredSpeed(r).hashesPerSecond)) };
    report.hashesPerSecond = Math.round(speed.hashesPerSecond);

    const inline = await startMining({ difficulty: 8, blocks: 2, data: 'compose inline' });
    assert.equal(inline.resultType, 'complete');
    assert.equal(structured(inline).status, 'completed');

    const taskId = await startLongTask(8, 3, 'compose task');
    const task = await taskUntil(taskId, finished);
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
    const taskId = await startLongTask(8, 2, 'compose worker restart');
    const restart = Date.now();
    await compose(['restart', 'worker'], 120_000);
    report.workerRestartMs = Date.now() - restart;
    const task = await taskUntil(taskId, finished);
    assert.equal(task.status, 'completed');
    assert.deepEqual(
      chainOf(task).blocks.map((b) => b.index),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    report.completedTask = taskId;
    await allHealthy();
  });

  test('down, then up again: the volumes hold; a task started before is still there and finishes', async () => {
    const running = await startLongTask(8, 2, 'compose down and up');
    await compose(['down'], 180_000);
    assert.deepEqual(await ps(true), [], 'down removed the containers');
    const before = token;
    const { ms } = await upUntilHealthy(false);
    (report.upToReadyMs as Record<string, number>).again = ms;
    const file = (await compose(['exec', '-T', 'gateway', 'cat', TOKEN_FILE])).stdout.trim();
    assert.equal(file, `user:${before}`, 'the same token: it lives on the gateway volume');

    const old = await call('tasks/get', { taskId: String(report.completedTask) });
    assert.equal(old.status, 'completed', 'a task finished before down');
    const resumed = await taskUntil(running, finished);
    assert.equal(resumed.status, 'completed', 'the task that was running at down');
    assert.equal(chainOf(resumed).blocks.length, 8);
  });

  test('down -v leaves nothing running and no volume or network of the project', async () => {
    await compose(['down', '-v'], 180_000);
    assert.deepEqual(await ps(true), []);
    const label = `label=com.docker.compose.project=${PROJECT}`;
    for (const kind of ['container', 'volume', 'network']) {
      const listed = await run(
        'docker',
        [kind, 'ls', ...(kind === 'container' ? ['--all'] : []), '--quiet', '--filter', label],
        30_000,
      );
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout.trim(), '', `no ${kind} of ${PROJECT} left`);
    }
  });
});
