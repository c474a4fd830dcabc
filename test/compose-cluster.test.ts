// The compose profiles beyond the default stack, for real, with no variable set but the profile:
// `--profile cluster` (PostgreSQL, the Temporal server's four services, the schema and namespace
// jobs, the Web UI, two gateways behind HAProxy, three workers) and `--profile tracing` (Jaeger),
// driven through the ports they publish as a user would. On podman the images are the locally
// built substitutes (scripts/compose-images.sh --profiles). Not part of `npm test`: `npm run
// test:compose` (COMPOSE_TESTS=1). Times to ready and after each fault go to COMPOSE_CLUSTER_REPORT,
// default .data/compose-cluster.json, and are printed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { pollUntil } from '../common/poll.ts';
import type { ChainResult } from '../workflows/mining/types.ts';
import { ComposeProject, type PsEntry, ROOT } from './support/compose.ts';
import { difficultyFor, type MinerSpeed, measuredSpeed } from './support/gateway-difficulty.ts';
import { traceWhen } from './support/jaeger.ts';
import { structured } from './support/mcp-clients.ts';
import { rpc, TASKS_CLIENT } from './support/mcp-http.ts';

const REPORT = process.env.COMPOSE_CLUSTER_REPORT || join(ROOT, '.data', 'compose-cluster.json');
const TOKEN_FILE = '/home/node/gateway-data/auth-tokens';
const UP_TIMEOUT_MS = 20 * 60_000;
const READY_TIMEOUT_MS = 6 * 60_000;
const TASK_TIMEOUT_MS = 4 * 60_000;
/** What the profiles publish, fixed in docker-compose.yml. */
const PROXY = new URL('http://127.0.0.1:3300/mcp');
const FRONTEND = '127.0.0.1:7333';
const UI = new URL('http://127.0.0.1:8333/');
const JAEGER = { uiUrl: 'http://127.0.0.1:16686' };
const GATEWAY = new URL('http://127.0.0.1:3000/mcp');
/** The one-shot jobs of the cluster profile: they run to their end, then stay exited. */
const JOBS = ['temporal-schema', 'temporal-namespace'];

const skip = process.env.COMPOSE_TESTS === '1' ? false : 'the compose tests run with npm run test:compose';
const report: Record<string, unknown> = {};
const faults: Record<string, number> = {};

/** Every service up: jobs exited 0, the rest running and healthy where they have a check. */
function ready(expected: string[]) {
  return (entries: PsEntry[]) =>
    expected.every((service) => entries.some((e) => e.Service === service)) &&
    entries.every((e) =>
      JOBS.includes(e.Service)
        ? e.State === 'exited' && e.ExitCode === 0
        : e.State === 'running' && (e.Health === '' || e.Health === 'healthy'),
    );
}

/** A client of one stack's MCP endpoint with its generated token. */
function mcp(url: URL, token: string) {
  const call = async (method: string, params: Record<string, unknown>) => {
    const answer = await rpc(url, method, params, TASKS_CLIENT, { authorization: `Bearer ${token}` });
    if (!answer.result) throw new Error(`${method}: ${answer.httpStatus} ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  const until = (
    taskId: string,
    done: (task: Record<string, unknown>) => boolean,
    timeoutMs = TASK_TIMEOUT_MS,
  ) =>
    pollUntil(
      async () => {
        const task = await call('tasks/get', { taskId });
        return done(task) ? task : undefined;
      },
      { timeoutMs, intervalMs: 500 },
    );
  const finished = (task: Record<string, unknown>) =>
    !['working', 'input_required'].includes(String(task.status));
  const mine = async (args: Record<string, unknown>): Promise<ChainResult> => {
    const answer = await call('tools/call', { name: 'start_mining', arguments: args });
    const done = answer.resultType === 'task' ? await until(String(answer.taskId), finished) : answer;
    return structured(done.result ?? done).result as ChainResult;
  };
  /** A chain of `blocks` blocks of about `seconds` each, started as a task and mining. */
  const longTask = async (speed: MinerSpeed, blocks: number, seconds: number, data: string) => {
    const difficulty = difficultyFor(speed, seconds);
    const created = await call('tools/call', {
      name: 'start_mining',
      arguments: { difficulty, blocks, data },
    });
    assert.equal(created.resultType, 'task', `${data}: outlasts the wait budget`);
    const taskId = String(created.taskId);
    await until(taskId, (t) => /[1-9][\d,]* hashes tried/.test(String(t.statusMessage ?? '')), 90_000);
    return taskId;
  };
  return { call, until, finished, mine, longTask };
}

async function generatedToken(project: ComposeProject, service: string): Promise<string> {
  const file = (await project.compose(['exec', '-T', service, 'cat', TOKEN_FILE])).stdout.trim();
  const match = /^user:([A-Za-z0-9_-]{43})$/.exec(file);
  assert.ok(match, `one principal:token line: ${file.replace(/:.*/, ':…')}`);
  return match[1] as string;
}

/** The calibrated miner speed: the faster of two short chains. */
async function calibrate(client: ReturnType<typeof mcp>): Promise<MinerSpeed> {
  await client.mine({ difficulty: 14, blocks: 2 });
  const runs = [
    await client.mine({ difficulty: 18, blocks: 3 }),
    await client.mine({ difficulty: 18, blocks: 3, data: 'c' }),
  ];
  return { hashesPerSecond: Math.max(...runs.map((r) => measuredSpeed(r).hashesPerSecond)) };
}

describe('docker compose --profile cluster: a Temporal cluster on PostgreSQL, two gateways, three workers', {
  skip,
}, () => {
  const project = new ComposeProject({ name: 'tmg-compose-cluster', profiles: ['cluster'] });
  let client: ReturnType<typeof mcp>;
  let speed: MinerSpeed;
  let temporal: Client | undefined;

  before(async () => {
    report.engine = await project.prepareEngine(['--profiles']);
    await project.compose(['down', '-v', '--remove-orphans'], 300_000);
  });

  after(async () => {
    await temporal?.connection.close();
    if (process.env.COMPOSE_KEEP !== '1')
      await project.compose(['down', '-v', '--remove-orphans'], 300_000).catch(() => {});
    mkdirSync(dirname(REPORT), { recursive: true });
    report.faultToCompletionMs = faults;
    writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`compose cluster report (${REPORT}):\n${JSON.stringify(report, null, 2)}`);
  });

  test('up from nothing: the jobs finish, and each service starts once what it needs is ready', async () => {
    const started = Date.now();
    await project.compose(['up', '--build', '-d'], UP_TIMEOUT_MS);
    const services = [
      'postgresql',
      'temporal-frontend',
      'temporal-ui',
      'mcp-proxy',
      'cluster-worker',
      ...JOBS,
    ];
    const entries = await project.until(ready(services), READY_TIMEOUT_MS, 'the cluster ready');
    await pollUntil(async () => ((await fetch(new URL('/readyz', PROXY))).ok ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    report.upToReadyMs = { cold: Date.now() - started };
    assert.equal(entries.filter((e) => e.Service === 'cluster-worker').length, 3, 'three workers');
    const times = await startTimes(project, entries);
    const after = (service: string, dependency: string, at: 'started' | 'finished') =>
      assert.ok(
        (times[service]?.started ?? 0) >= (times[dependency]?.[at] ?? Number.POSITIVE_INFINITY),
        `${service} started after ${dependency} ${at}: ${JSON.stringify(times)}`,
      );
    after('temporal-schema', 'postgresql', 'started');
    for (const service of ['temporal-history', 'temporal-matching', 'temporal-frontend', 'temporal-worker'])
      after(service, 'temporal-schema', 'finished');
    after('temporal-namespace', 'temporal-frontend', 'started');
    for (const service of ['cluster-gateway-1', 'cluster-gateway-2', 'cluster-worker'])
      after(service, 'temporal-namespace', 'finished');
    after('mcp-proxy', 'cluster-gateway-2', 'started');
    temporal = new Client({ connection: await Connection.connect({ address: FRONTEND }) });
  });

  test('the two gateways share a token and answer for each other’s tasks behind HAProxy', async () => {
    const token = await generatedToken(project, 'cluster-gateway-1');
    assert.equal(await generatedToken(project, 'cluster-gateway-2'), token, 'one token on the shared volume');
    client = mcp(PROXY, token);
    speed = await calibrate(client);
    report.hashesPerSecond = Math.round(speed.hashesPerSecond);
    const taskId = await client.longTask(speed, 4, 1, 'behind the proxy');
    const before = await Promise.all([1, 2].map((i) => taskGets(project, `cluster-gateway-${i}`)));
    for (let i = 0; i < 6; i++) assert.ok((await client.call('tasks/get', { taskId })).status);
    const afterwards = await Promise.all([1, 2].map((i) => taskGets(project, `cluster-gateway-${i}`)));
    assert.ok(
      afterwards.every((count, i) => count > (before[i] ?? 0)),
      `both gateways answered tasks/get of one task: ${before} → ${afterwards}`,
    );
    assert.equal((await client.until(taskId, client.finished)).status, 'completed');
  });

  for (const [fault, act] of [
    ['kill temporal-history', (p: ComposeProject) => killAndStart(p, 'temporal-history')],
    [
      'kill one worker',
      (p: ComposeProject) => killAndStart(p, 'cluster-worker', `${p.name}-cluster-worker-1`),
    ],
    ['restart postgresql', (p: ComposeProject) => p.compose(['restart', 'postgresql'], 180_000)],
  ] as const) {
    test(`a run survives ${fault} and completes, every block once, no run lost`, async () => {
      const runsBefore = await runCount();
      const taskId = await client.longTask(speed, 8, 2, fault);
      const at = Date.now();
      await act(project);
      const task = await client.until(taskId, client.finished);
      faults[fault] = Date.now() - at;
      assert.equal(task.status, 'completed', JSON.stringify(task));
      const chain = structured(task.result).result as ChainResult;
      assert.deepEqual(
        chain.blocks.map((b) => b.index),
        [0, 1, 2, 3, 4, 5, 6, 7],
      );
      assert.equal(await runCount(), runsBefore + 1, 'every run is still there, and this one');
      await project.until(ready([]), READY_TIMEOUT_MS, `the cluster ready after ${fault}`);
    });
  }

  test('the Temporal UI lists the runs, and shows each one’s summary', async () => {
    const listed = await (
      await fetch(new URL('/api/v1/namespaces/default/workflows?query=WorkflowType%3D%22mineChain%22', UI))
    ).json();
    const executions =
      (listed as { executions?: { execution: { workflowId: string; runId: string } }[] }).executions ?? [];
    assert.ok(executions.length >= 4, `the UI lists the runs (${executions.length})`);
    const { workflowId, runId } = executions[0]?.execution ?? { workflowId: '', runId: '' };
    const described = (await (
      await fetch(
        new URL(
          `/api/v1/namespaces/default/workflows/${encodeURIComponent(workflowId)}?execution.runId=${runId}`,
          UI,
        ),
      )
    ).json()) as { executionConfig?: { userMetadata?: { summary?: { data?: string } } } };
    const summary = Buffer.from(
      described.executionConfig?.userMetadata?.summary?.data ?? '',
      'base64',
    ).toString();
    assert.match(summary, /user/, `the run's summary through the UI: ${summary}`);
  });

  test('down -v leaves no container, volume or network of the project', async () => {
    await temporal?.connection.close();
    temporal = undefined;
    await project.compose(['down', '-v'], 300_000);
    assert.deepEqual(await project.leftovers(), { container: '', volume: '', network: '' });
  });

  async function runCount(): Promise<number> {
    const { count } = await (temporal as Client).workflow.count('WorkflowType = "mineChain"');
    return count;
  }
});

describe('docker compose --profile tracing: one call’s trace in Jaeger, gateway to activity', {
  skip,
}, () => {
  const project = new ComposeProject({
    name: 'tmg-compose-tracing',
    files: ['docker-compose.yml', 'docker-compose.tracing.yml'],
    profiles: ['tracing'],
  });

  before(async () => {
    await project.prepareEngine(['--profiles']);
    await project.compose(['down', '-v', '--remove-orphans'], 300_000);
  });

  after(async () => {
    if (process.env.COMPOSE_KEEP !== '1')
      await project.compose(['down', '-v', '--remove-orphans'], 300_000).catch(() => {});
  });

  test('up, one call, and its spans from the gateway and the worker under one trace', async () => {
    const started = Date.now();
    await project.compose(['up', '--build', '-d'], UP_TIMEOUT_MS);
    await project.until(ready(['jaeger', 'gateway', 'worker']), READY_TIMEOUT_MS, 'the traced stack ready');
    report.tracingUpToReadyMs = Date.now() - started;
    const client = mcp(GATEWAY, await generatedToken(project, 'gateway'));
    const traceId = randomBytes(16).toString('hex');
    const answer = await client.call('tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 8, blocks: 2, data: 'traced' },
      _meta: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    assert.equal(answer.resultType, 'complete', JSON.stringify(answer));
    const spans = await traceWhen(
      JAEGER,
      traceId,
      (s) =>
        s.filter((x) => x.name === 'RunActivity:mineBlock').length === 2 &&
        s.some((x) => x.name === 'tools/call start_mining'),
      'the call’s trace in Jaeger',
      60_000,
    );
    const services = new Set(spans.map((s) => s.service));
    assert.ok(services.has('mcp-gateway') && services.has('mcp-worker'), [...services].join(', '));
    await project.compose(['down', '-v'], 300_000);
    assert.deepEqual(await project.leftovers(), { container: '', volume: '', network: '' });
  });
});

/** When each service's first container started and finished (ms since the epoch). */
async function startTimes(project: ComposeProject, entries: PsEntry[]) {
  const inspected = await project.run(
    'docker',
    [
      'inspect',
      '--format',
      '{{.Name}} {{.State.StartedAt}} {{.State.FinishedAt}}',
      ...entries.map((e) => e.Name),
    ],
    30_000,
  );
  assert.equal(inspected.code, 0, inspected.stderr);
  const times: Record<string, { started: number; finished: number }> = {};
  for (const line of inspected.stdout.trim().split('\n')) {
    const [name, startedAt, finishedAt] = line.trim().split(' ');
    const entry = entries.find((e) => `/${e.Name}` === name || e.Name === name);
    if (!entry || times[entry.Service]) continue;
    times[entry.Service] = { started: Date.parse(startedAt ?? ''), finished: Date.parse(finishedAt ?? '') };
  }
  return times;
}

/** The tasks/get requests one gateway has answered (its /metrics, read inside its container). */
async function taskGets(project: ComposeProject, service: string): Promise<number> {
  const script =
    "fetch('http://127.0.0.1:3000/metrics').then((r)=>r.text()).then((t)=>process.stdout.write(t))";
  const { stdout } = await project.compose(['exec', '-T', service, 'node', '-e', script]);
  return [
    ...stdout.matchAll(/^mcp_gateway_task_requests_total\{[^}]*method="tasks\/get"[^}]*\} (\d+)/gm),
  ].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** SIGKILLs a service's container (one replica when `container` names it), then starts it again. */
async function killAndStart(project: ComposeProject, service: string, container?: string) {
  if (container) {
    const killed = await project.run('docker', ['kill', container], 60_000);
    assert.equal(killed.code, 0, killed.stderr);
  } else await project.compose(['kill', service], 60_000);
  await project.compose(['start', service], 180_000);
}
