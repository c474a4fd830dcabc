// `docker compose --profile cluster`, for real, with no variable set but the profile: PostgreSQL,
// the Temporal server's four services, the schema and namespace jobs, the Web UI, two gateways
// behind HAProxy and three workers, driven through the ports they publish as a user would. On
// podman the images are the locally built substitutes (scripts/compose-images.sh --profiles). Not
// part of `npm test`: `npm run test:compose:profiles` (COMPOSE_TESTS=1). Times to ready and after
// each fault go to COMPOSE_CLUSTER_REPORT, default .data/compose-cluster.json, and are printed.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { ComposeProject, type PsEntry, READY_TIMEOUT_MS, ROOT, servicesReady } from './support/compose.ts';
import {
  type ComposeClient,
  calibrate,
  chainOf,
  composeClient,
  finished,
  generatedToken,
} from './support/compose-mcp.ts';
import type { MinerSpeed } from './support/gateway-difficulty.ts';

const REPORT = process.env.COMPOSE_CLUSTER_REPORT || join(ROOT, '.data', 'compose-cluster.json');
/** What the profile publishes, fixed in docker-compose.yml. */
const PROXY = new URL('http://127.0.0.1:3300/mcp');
const FRONTEND = '127.0.0.1:7333';
const UI = new URL('http://127.0.0.1:8333/');
/** The one-shot jobs of the cluster profile: they run to their end, then stay exited. */
const JOBS = ['temporal-schema', 'temporal-namespace'];
const clusterReady = servicesReady(
  ['postgresql', 'temporal-frontend', 'temporal-ui', 'mcp-proxy', 'cluster-worker', ...JOBS],
  JOBS,
);

const skip =
  process.env.COMPOSE_TESTS === '1' ? false : 'the compose tests run with npm run test:compose:profiles';
const report: Record<string, unknown> = {};
const faults: Record<string, number> = {};

after(() => {
  if (skip) return; // Nothing ran: a report from an earlier run stays as it is.
  mkdirSync(dirname(REPORT), { recursive: true });
  report.faultToCompletionMs = faults;
  writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`compose profiles report (${REPORT}):\n${JSON.stringify(report, null, 2)}`);
});

describe('docker compose --profile cluster: a Temporal cluster on PostgreSQL, two gateways, three workers', {
  skip,
}, () => {
  const project = new ComposeProject({ name: 'tmg-compose-cluster', profiles: ['cluster'] });
  let client: ComposeClient;
  let speed: MinerSpeed;
  let temporal: Client | undefined;
  let finishedTask = '';

  before(async () => {
    const started = Date.now();
    report.engine = await project.prepareEngine(['--profiles']);
    report.baseImagesMs = Date.now() - started;
    await project.compose(['down', '-v', '--remove-orphans'], 300_000);
  });

  after(async () => {
    await temporal?.connection.close();
    if (process.env.COMPOSE_KEEP !== '1')
      await project.compose(['down', '-v', '--remove-orphans'], 300_000).catch(() => {});
  });

  test('up from nothing: the jobs finish, and each service starts once what it needs is ready', async () => {
    const { ms, entries } = await project.upUntilReady(clusterReady, PROXY, { build: true });
    report.clusterUpToReadyMs = { cold: ms };
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
    client = composeClient(PROXY, token);
    speed = await calibrate(client);
    report.hashesPerSecond = Math.round(speed.hashesPerSecond);
    // Past the gateways' default wait budget (20 s), so the call answers with a task.
    const { taskId } = await client.longTask(speed, 20, 3, 'behind the proxy');
    const before = await Promise.all([1, 2].map((i) => taskGets(project, `cluster-gateway-${i}`)));
    for (let i = 0; i < 6; i++) assert.ok((await client.call('tasks/get', { taskId })).status);
    const afterwards = await Promise.all([1, 2].map((i) => taskGets(project, `cluster-gateway-${i}`)));
    assert.ok(
      afterwards.every((count, i) => count > (before[i] ?? 0)),
      `both gateways answered tasks/get of one task: ${before} → ${afterwards}`,
    );
    assert.equal((await client.until(taskId, finished)).status, 'completed');
    finishedTask = taskId;
  });

  /** A chain of 20 blocks of about 3 s: the fault strikes after the 20 s budget, mid-chain. */
  const BLOCKS = 20;
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
      const { taskId, runs } = await client.longTask(speed, BLOCKS, 3, fault);
      const at = Date.now();
      await act(project);
      const task = await client.until(taskId, finished);
      faults[fault] = Date.now() - at;
      assert.equal(task.status, 'completed', JSON.stringify(task));
      const chain = chainOf(task);
      assert.deepEqual(
        chain.blocks.map((b) => b.index),
        [...Array(BLOCKS).keys()],
      );
      assert.equal(await runCount(), runsBefore + runs, 'every run is still there, and this one');
      finishedTask = taskId;
      await project.until(clusterReady, READY_TIMEOUT_MS, `the cluster ready after ${fault}`);
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

  test('down, then up again (warm): the volumes hold every run, and a finished task still answers', async () => {
    const runs = await runCount();
    await temporal?.connection.close();
    temporal = undefined;
    await project.compose(['down'], 300_000);
    const { ms } = await project.upUntilReady(clusterReady, PROXY, { build: false });
    (report.clusterUpToReadyMs as Record<string, number>).warm = ms;
    temporal = new Client({ connection: await Connection.connect({ address: FRONTEND }) });
    assert.equal(await runCount(), runs, 'every run is still there');
    // Right after `up` the frontend may answer before the history service serves: the gateway
    // says temporal_unavailable, "try again shortly", and a client tries again.
    assert.equal((await client.until(finishedTask, finished, 120_000)).status, 'completed');
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
