// The production-shaped stack (launcher/cluster: PostgreSQL, the Temporal server's four services as
// separate processes, two gateways behind HAProxy, three workers), then pieces of it broken while
// tasks run. Not part of `npm test` (it needs the Debian packages postgresql and haproxy and the
// Temporal server binaries, and takes minutes): `npm run test:cluster`, which sets CLUSTER_TESTS=1.
// Every fault: the task survives, nothing is lost or duplicated, and the report says what the
// client saw and how long until progress resumed (written to CLUSTER_REPORT, default
// .data/cluster-faults.json, and printed).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { ANONYMOUS } from '../gateway/mcp/handler.ts';
import { runPriority } from '../gateway/temporal/fairness.ts';
import { taskRun } from '../gateway/temporal/task-ids.ts';
import { type Cluster, startCluster } from '../launcher/cluster/cluster.ts';
import { freeClusterPorts } from '../launcher/cluster/ports.ts';
import { TEMPORAL_SERVER_VERSION } from '../launcher/cluster/temporal-server.ts';
import { freePort } from '../launcher/free-port.ts';
import type { ChainResult } from '../workflows/mining/types.ts';
import {
  callWithRetry,
  type MiningView,
  plainCall,
  tally,
  type WatchReport,
  watchTask,
} from './support/cluster-client.ts';
import { dispatchOrder } from './support/dispatch-order.ts';
import { calibrate, difficultyFor, type MinerSpeed, measuredSpeed } from './support/gateway-difficulty.ts';
import { type GatewayProcess, startGatewayProcess } from './support/gateway-process.ts';
import { structured } from './support/mcp-clients.ts';
import { PLAIN_CLIENT, rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { eventually } from './support/temporal.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPORT = process.env.CLUSTER_REPORT || join(ROOT, '.data', 'cluster-faults.json');
const FAULT_TIMEOUT_MS = 240_000;
const WAIT_BUDGET_MS = 500;
/** Calibrated seconds per block of a fault's task: long enough that the task outlives the fault. */
const BLOCK_SECONDS = 4;
/** How long a killed Temporal service or a stopped PostgreSQL stays down before it is started again. */
const DOWN_MS = Number(process.env.CLUSTER_FAULT_DOWN_MS || 5_000);

let cluster: Cluster;
let dataDir: string;
let connection: Connection;
let temporal: Client;
let speed: MinerSpeed;
/** Every idempotency key this file started a job with: one workflow each, no more. */
const keys = new Set<string>();
const report: Record<string, unknown> = {};

/** A chain whose blocks take about `seconds` each. */
function chain(blocks: number, seconds: number, label: string) {
  const key = `${label}-${randomUUID()}`;
  keys.add(key);
  return { difficulty: difficultyFor(speed, seconds), blocks, data: label, idempotency_key: key };
}

function assertWholeChain(result: ChainResult | MiningView['result'], blocks: number): void {
  assert.ok(result, 'a result');
  assert.deepEqual(
    result.blocks.map((b) => b.index),
    Array.from({ length: blocks }, (_, i) => i),
    'every block once, in order',
  );
}

/** Starts a chain through the proxy and waits until its first block has heartbeated progress. */
async function startRunning(blocks: number, seconds: number, label: string) {
  const args = chain(blocks, seconds, label);
  const startErrors: string[] = [];
  const started = await callWithRetry(cluster.mcpUrl, 'start_mining', args, startErrors);
  assert.equal(started.status, 'running', `${label}: still running after the wait budget`);
  const watch = watchTask(cluster.mcpUrl, started.workflowId, FAULT_TIMEOUT_MS);
  await eventually(
    async () => ((watch.latest()?.hashes ?? 0) > 0 ? true : undefined),
    60_000,
    `${label}: progress`,
  );
  return { args, workflowId: started.workflowId, watch };
}

/** A task's run handle: under the running-task cap (the gateways' default) its slot's workflow and its run. */
function taskRunHandle(taskId: string) {
  const secret = Buffer.from(readFileSync(join(cluster.dataDir, 'server-secret'), 'utf8').trim(), 'utf8');
  const { workflowId, runId } = taskRun(secret, ANONYMOUS, taskId);
  return temporal.workflow.getHandle(workflowId, runId);
}

/** After a fault: the task completed, every block in its result once (the last test counts workflows per key). */
async function assertSurvived(label: string, workflowId: string, blocks: number, watchReport: WatchReport) {
  assert.equal(watchReport.final?.status, 'completed', `${label}: ${JSON.stringify(watchReport.final)}`);
  assertWholeChain(watchReport.final?.result, blocks);
  const handle = taskRunHandle(workflowId);
  const description = await handle.describe();
  assert.equal(description.status.name, 'COMPLETED');
  const attempts = (watchReport.final?.result?.blocks ?? []).map((b) => b.attempt);
  return { attempts };
}

function record(name: string, figures: Record<string, unknown>): void {
  report[name] = figures;
  console.log(`cluster fault ${name}: ${JSON.stringify(figures)}`);
}

async function workflowCount(): Promise<number> {
  const { count } = await temporal.workflow.count('McpTool = "start_mining"');
  return count;
}

// `npm test` globs test/*.test.ts: there this file is skipped; `npm run test:cluster` sets CLUSTER_TESTS=1.
const skip = process.env.CLUSTER_TESTS === '1' ? false : 'the cluster tests run with npm run test:cluster';

describe('cluster: PostgreSQL, Temporal services as processes, two gateways behind HAProxy, three workers', {
  skip,
}, () => {
  before(
    async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'mcp-cluster-'));
      const startedAt = Date.now();
      cluster = await startCluster({
        dataDir,
        ports: await freeClusterPorts(),
        say: (line) => console.log(`cluster: ${line}`),
        // One thread each: three workers and the cluster share this machine's cores.
        workerEnv: { MINER_THREADS: '1' },
        // A short wait budget: every run of seconds comes back as a handle at once.
        gatewayEnv: { MCP_WAIT_BUDGET_MS: String(WAIT_BUDGET_MS) },
      });
      report.startMs = Date.now() - startedAt;
      connection = await Connection.connect({ address: cluster.temporalAddress });
      temporal = new Client({ connection, namespace: 'default' });
      // The quick calibration, then a longer run at its estimate of 2 s a block: the estimate from
      // tiny blocks is off by a few times (start-up costs weigh on them).
      speed = measuredSpeed(
        await mineThrough(cluster.mcpUrl, difficultyFor(await calibrate(cluster.mcpUrl), 2), 2),
      );
      report.hashesPerSecond = Math.round(speed.hashesPerSecond);
    },
    { timeout: 300_000 },
  );

  after(
    async () => {
      mkdirSync(dirname(REPORT), { recursive: true });
      writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
      await connection?.close().catch(() => {});
      await cluster?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    { timeout: 120_000 },
  );

  test('the proxy spreads calls over both gateways, round robin', async () => {
    const before = await Promise.all(cluster.gatewayUrls.map((url) => toolCalls(url.origin)));
    for (let i = 0; i < 6; i++) {
      await callWithRetry(cluster.mcpUrl, 'start_mining', chain(1, 0.01, 'rr'), []);
    }
    const after = await Promise.all(cluster.gatewayUrls.map((url) => toolCalls(url.origin)));
    const served = after.map((count, i) => count - (before[i] ?? 0));
    assert.deepEqual(served, [3, 3], `calls per gateway: ${served}`);
  });

  test('a task started on one gateway is polled and finished through the other (Tasks extension)', async () => {
    const [one, two] = cluster.gatewayUrls as [URL, URL];
    const created = await rpcResult(one, 'tools/call', {
      name: 'start_mining',
      arguments: chain(3, 2, 'tasks'),
    });
    assert.equal(created.resultType, 'task');
    const taskId = String(created.taskId);
    const seen: string[] = [];
    const done = await eventually(
      async () => {
        // Alternate: even polls on gateway 2, odd on gateway 1.
        const url = seen.length % 2 === 0 ? two : one;
        const task = await rpcResult(url, 'tasks/get', { taskId });
        seen.push(String(task.status));
        return task.status === 'working' ? undefined : task;
      },
      120_000,
      'the task to finish',
      250,
    );
    assert.equal(done.status, 'completed');
    assertWholeChain(structured(done.result).result as ChainResult, 3);
  });

  test('start/poll: started on gateway 2, polled on gateway 1, the same answer from both', async () => {
    const [one, two] = cluster.gatewayUrls as [URL, URL];
    const args = chain(3, 2, 'start-poll');
    const started = await plainCall(two, 'start_mining', args);
    assert.ok(started.ok, JSON.stringify(started));
    assert.equal(started.view.status, 'running');
    // A retried start on the other gateway is the same task, not a second job.
    const again = await plainCall(one, 'start_mining', args);
    assert.ok(again.ok);
    assert.equal(again.view.workflowId, started.view.workflowId);
    const done = await eventually(
      async () => {
        const polled = await plainCall(one, 'get_mining_result', { workflow_id: started.view.workflowId });
        return polled.ok && polled.view.status !== 'running' ? polled.view : undefined;
      },
      120_000,
      'the run to finish',
      250,
    );
    assert.equal(done.status, 'completed');
    const other = await plainCall(two, 'get_mining_result', { workflow_id: started.view.workflowId });
    assert.ok(other.ok);
    assert.deepEqual(other.view, done);
  });

  test('cancelled through the other gateway than the one that created it', async () => {
    const [one, two] = cluster.gatewayUrls as [URL, URL];
    const created = await rpcResult(one, 'tools/call', {
      name: 'start_mining',
      arguments: chain(5, 5, 'cancel'),
    });
    assert.equal(created.resultType, 'task');
    const taskId = String(created.taskId);
    await rpcResult(two, 'tasks/cancel', { taskId });
    const final = await eventually(
      async () => {
        const task = await rpcResult(one, 'tasks/get', { taskId });
        return task.status === 'working' ? undefined : task;
      },
      30_000,
      'the cancellation',
      250,
    );
    assert.equal(final.status, 'cancelled');
  });

  test('a catalog tool (catalog/tools.yaml: mine_chain) through two gateways serving that catalog, alternately', async () => {
    const catalogGateways: GatewayProcess[] = [];
    try {
      for (let i = 0; i < 2; i++)
        catalogGateways.push(
          await startGatewayProcess(await freePort(), {
            TEMPORAL_ADDRESS: cluster.temporalAddress,
            TEMPORAL_TASK_QUEUE: cluster.taskQueue,
            MCP_TOOLS_FILE: join(ROOT, 'catalog', 'tools.yaml'),
            MCP_SERVER_SECRET_FILE: join(cluster.dataDir, 'server-secret'),
            MCP_DATA_DIR: join(cluster.dataDir, 'gateway-data'),
            MCP_WAIT_BUDGET_MS: String(WAIT_BUDGET_MS),
          }),
        );
      const [a, b] = catalogGateways as [GatewayProcess, GatewayProcess];
      const difficulty = difficultyFor(speed, 2);
      const created = await rpcResult(a.url, 'tools/call', {
        name: 'mine_chain',
        arguments: { difficulty, blocks: 3, data: 'catalog' },
      });
      assert.equal(created.resultType, 'task');
      const taskId = String(created.taskId);
      let n = 0;
      const done = await eventually(
        async () => {
          const task = await rpcResult(n++ % 2 === 0 ? b.url : a.url, 'tasks/get', { taskId }, TASKS_CLIENT);
          return task.status === 'working' ? undefined : task;
        },
        120_000,
        'the catalog task',
        250,
      );
      assert.equal(done.status, 'completed');
      assertWholeChain(structured(done.result).result as ChainResult, 3);
      // The same run, read through the start/poll companion on the other gateway.
      const polled = await rpcResult(
        b.url,
        'tools/call',
        { name: 'get_mine_chain_result', arguments: { workflow_id: taskId } },
        PLAIN_CLIENT,
      );
      assert.equal(structured(polled).status, 'completed');
    } finally {
      await Promise.all(catalogGateways.map((g) => g.stop()));
    }
  });

  test(`the start check: each gateway says it met Temporal ${TEMPORAL_SERVER_VERSION} and that it lacks nothing`, async () => {
    for (const name of ['gateway-1', 'gateway-2']) {
      const log = join(cluster.dataDir, 'logs', `${name}.log`);
      const output = await eventually(
        async () => {
          const text = readFileSync(log, 'utf8');
          return text.includes(`gateway: Temporal server ${TEMPORAL_SERVER_VERSION}`) ? text : undefined;
        },
        10_000,
        `${name}: the line naming the server`,
      );
      assert.doesNotMatch(output, /lacks what the gateway uses/, name);
    }
  });

  test(`fairness and priority keys: a run carries its principal's, and matching on ${TEMPORAL_SERVER_VERSION} honours both`, async () => {
    const started = await callWithRetry(cluster.mcpUrl, 'start_mining', chain(1, 0.01, 'priority'), []);
    const { raw } = await taskRunHandle(started.workflowId).describe();
    assert.equal(raw.workflowExecutionInfo?.priority?.fairnessKey, ANONYMOUS);
    // Runs waiting on a queue no worker polls, as the gateway starts them, handed out one by one.
    const fair = await dispatchOrder(temporal, [
      ...Array.from({ length: 8 }, () => ({ label: 'alice', priority: runPriority('alice') })),
      { label: 'bob', priority: runPriority('bob') },
    ]);
    assert.ok(
      fair.indexOf('bob') <= 2,
      `first come, first served would hand bob's out last: ${fair.join(' ')}`,
    );
    const byPriority = await dispatchOrder(temporal, [
      ...Array.from({ length: 5 }, () => ({ label: 'later', priority: runPriority('alice', undefined, 5) })),
      { label: 'first', priority: runPriority('alice', undefined, 1) },
    ]);
    assert.equal(byPriority[0], 'first', byPriority.join(' '));
  });

  test('fault: the history service is killed mid-task and restarted', {
    timeout: FAULT_TIMEOUT_MS,
  }, async () => {
    const run = await startRunning(10, BLOCK_SECONDS, 'history');
    const faultAt = run.watch.markFault();
    await cluster.temporal.history.kill('SIGKILL');
    await delay(DOWN_MS);
    await cluster.temporal.history.start();
    const restartedMs = Date.now() - faultAt;
    const watched = await run.watch.done;
    const { attempts } = await assertSurvived('history', run.workflowId, 10, watched);
    record('history-kill', { killedToRestartedMs: restartedMs, ...summary(watched, restartedMs), attempts });
  });

  test('fault: the matching service is killed mid-task and restarted', {
    timeout: FAULT_TIMEOUT_MS,
  }, async () => {
    const run = await startRunning(10, BLOCK_SECONDS, 'matching');
    const faultAt = run.watch.markFault();
    await cluster.temporal.matching.kill('SIGKILL');
    await delay(DOWN_MS);
    await cluster.temporal.matching.start();
    const restartedMs = Date.now() - faultAt;
    const watched = await run.watch.done;
    const { attempts } = await assertSurvived('matching', run.workflowId, 10, watched);
    record('matching-kill', { killedToRestartedMs: restartedMs, ...summary(watched, restartedMs), attempts });
  });

  test('fault: PostgreSQL restarts mid-task', { timeout: FAULT_TIMEOUT_MS }, async () => {
    const run = await startRunning(10, BLOCK_SECONDS, 'postgres');
    const faultAt = run.watch.markFault();
    await cluster.postgres.stop(); // fast shutdown: every connection of every service is cut
    const stoppedMs = Date.now() - faultAt;
    await delay(DOWN_MS);
    await cluster.postgres.start();
    const restartedMs = Date.now() - faultAt;
    const watched = await run.watch.done;
    const { attempts } = await assertSurvived('postgres', run.workflowId, 10, watched);
    record('postgres-restart', {
      stoppedMs,
      downMs: restartedMs,
      ...summary(watched, restartedMs),
      attempts,
    });
  });

  test('fault: PostgreSQL crashes mid-task (immediate shutdown) and recovers from its WAL', {
    timeout: FAULT_TIMEOUT_MS,
  }, async () => {
    const run = await startRunning(10, BLOCK_SECONDS, 'postgres-crash');
    const faultAt = run.watch.markFault();
    // SIGQUIT: the postmaster kills its backends and exits without a checkpoint, as in a crash.
    await cluster.postgres.kill('SIGQUIT');
    await delay(DOWN_MS);
    await cluster.postgres.start();
    const restartedMs = Date.now() - faultAt;
    const watched = await run.watch.done;
    const { attempts } = await assertSurvived('postgres-crash', run.workflowId, 10, watched);
    record('postgres-crash', { downMs: restartedMs, ...summary(watched, restartedMs), attempts });
  });

  test('fault: the frontend is killed mid-task and restarted', { timeout: FAULT_TIMEOUT_MS }, async () => {
    const run = await startRunning(10, BLOCK_SECONDS, 'frontend');
    const faultAt = run.watch.markFault();
    await cluster.temporal.frontend.kill('SIGKILL');
    await delay(DOWN_MS);
    await cluster.temporal.frontend.start();
    const restartedMs = Date.now() - faultAt;
    const watched = await run.watch.done;
    const { attempts } = await assertSurvived('frontend', run.workflowId, 10, watched);
    record('frontend-kill', { killedToRestartedMs: restartedMs, ...summary(watched, restartedMs), attempts });
  });

  test('fault: two of three workers are killed mid-block', { timeout: FAULT_TIMEOUT_MS }, async () => {
    const run = await startRunning(6, BLOCK_SECONDS, 'workers');
    // The worker running the block, and one more.
    const busy = await eventually(
      async () => {
        const description = await taskRunHandle(run.workflowId).describe();
        const identity = description.raw.pendingActivities?.[0]?.lastWorkerIdentity ?? '';
        return cluster.workers.find((w) => identity === `${w.pid}@${hostname()}`);
      },
      20_000,
      'the worker running the block',
    );
    const victims = [busy, ...cluster.workers.filter((w) => w !== busy).slice(0, 1)];
    run.watch.markFault();
    await Promise.all(victims.map((w) => w.kill('SIGKILL')));
    const watched = await run.watch.done;
    const { attempts } = await assertSurvived('workers', run.workflowId, 6, watched);
    assert.ok(Math.max(...attempts) >= 2, `the block was retried on the surviving worker: ${attempts}`);
    record('two-workers-kill', { killed: victims.map((w) => w.name), ...summary(watched), attempts });
    await Promise.all(victims.map((w) => w.start()));
  });

  test('fault: one gateway is killed under load; clients retry through the proxy', {
    timeout: FAULT_TIMEOUT_MS,
  }, async () => {
    const clients = 6;
    const errors: string[] = [];
    const jobs: Array<{ workflowId: string; blocks: number; view: MiningView }> = [];
    let stop = false;
    const stalls: number[] = [];
    const recoveries: number[] = [];
    const recovered = (ms: number) => recoveries.push(ms);
    const loop = async (n: number) => {
      while (!stop) {
        // Short jobs: a start, a few polls, a result; many requests a second across the clients.
        const args = chain(2, 0.1, `load-${n}`);
        const mine: string[] = [];
        const t0 = Date.now();
        const started = await callWithRetry(
          cluster.mcpUrl,
          'start_mining',
          args,
          mine,
          120_000,
          200,
          recovered,
        );
        let view = started;
        while (view.status === 'running') {
          await delay(250);
          const poll = { workflow_id: started.workflowId };
          view = await callWithRetry(
            cluster.mcpUrl,
            'get_mining_result',
            poll,
            mine,
            120_000,
            200,
            recovered,
          );
        }
        if (mine.length > 0) stalls.push(Date.now() - t0);
        errors.push(...mine);
        jobs.push({ workflowId: started.workflowId, blocks: args.blocks, view });
      }
    };
    const running = Array.from({ length: clients }, (_, n) => loop(n));
    await delay(8_000);
    const jobsBefore = jobs.length;
    await cluster.gateways[0]?.kill('SIGKILL');
    await delay(12_000);
    stop = true;
    await Promise.all(running);
    // Back in the rotation for what follows.
    await cluster.gateways[0]?.start();
    for (const job of jobs) {
      assert.equal(job.view.status, 'completed', JSON.stringify(job.view));
      assertWholeChain(job.view.result, job.blocks);
    }
    const ids = new Set(jobs.map((j) => j.workflowId));
    assert.equal(ids.size, jobs.length, 'one workflow per job');
    record('gateway-kill-under-load', {
      clients,
      jobsBeforeFault: jobsBefore,
      jobsCompleted: jobs.length,
      failedRequests: errors.length,
      errors: tally(errors),
      jobsThatSawAnError: stalls.length,
      longestJobThatSawAnErrorMs: stalls.length ? Math.max(...stalls) : 0,
      // A request's first failure → its retry answered.
      retryRecoveredMs: recoveries.sort((a, b) => a - b),
    });
  });

  test('nothing duplicated: one workflow per idempotency key this file used', async () => {
    // Visibility is eventually consistent: wait for it to settle on the count.
    const count = await eventually(
      async () => {
        const c = await workflowCount();
        return c >= keys.size ? c : undefined;
      },
      30_000,
      'visibility to list every run',
    );
    // The calibration's three runs have no key (the catalog run is a mine_chain, not counted here).
    const withoutKey = 3;
    assert.equal(count, keys.size + withoutKey, `${count} workflows for ${keys.size} keys + ${withoutKey}`);
    report.workflows = count;
    report.keys = keys.size;
  });
});

/** A chain mined through the start/poll tools (without a key: a calibration run). */
async function mineThrough(url: URL, difficulty: number, blocks: number): Promise<ChainResult> {
  const started = await callWithRetry(url, 'start_mining', { difficulty, blocks }, []);
  const done = await eventually(
    async () => {
      const view = await callWithRetry(url, 'get_mining_result', { workflow_id: started.workflowId }, []);
      return view.status === 'running' ? undefined : view;
    },
    120_000,
    'the calibration run',
    250,
  );
  assert.equal(done.status, 'completed');
  return done.result as unknown as ChainResult;
}

async function toolCalls(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('mcp_gateway_tool_calls_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

function summary(watched: WatchReport, restartedMs?: number) {
  return {
    recoveryMs: watched.recoveryMs,
    ...(restartedMs !== undefined && watched.recoveryMs !== undefined
      ? { recoveryAfterRestartMs: watched.recoveryMs - restartedMs }
      : {}),
    firstAnswerAfterFaultMs: watched.firstAnswerMs,
    longestGapMs: watched.longestGapMs,
    polls: watched.polls,
    failedPolls: watched.failedPolls,
    errors: watched.errors,
  };
}
