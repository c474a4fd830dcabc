// A run stuck on a size cause (its result is over gRPC's 4 MiB, so its workflow task fails on every
// retry), against real Temporal: a poll or a push answers it failed, result_too_large, and leaves the
// run running while MCP_STUCK_RUN_GRACE_MS lasts; past the grace, counted from the WorkflowTaskFailed
// event, a poll ends it and logs one line naming it. Two gateways with one secret, as two replicas.
// Under the running-task cap, a start that finds the slot held by a run stuck past the grace ends it
// and takes the slot, with nobody polling in between. Every gateway runs with the product's default
// running-task cap: a task's run holds a slot's workflow id, and the line naming an ended run names
// its run id as well.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../gateway/app.ts';
import { backendOptions, loadSettings } from '../gateway/settings/index.ts';
import { TemporalBackend } from '../gateway/temporal/backend.ts';
import { slotWorkflowId } from '../gateway/temporal/task-ids.ts';
import {
  DEFAULT_CAP,
  startGateway,
  TEST_SERVER_SECRET,
  type TestGateway,
  taskHandle,
} from './support/gateway-server.ts';
import { rpc, rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { listen } from './support/sse-listen.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const CATALOG = fileURLToPath(new URL('./fixtures/artifacts-catalog.yaml', import.meta.url));
const WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/artifacts.ts', import.meta.url));
const OVER_4_MIB = 4 * 1024 * 1024 + 1024;
const GRACE_MS = 2_000;

let temporal: TestTemporal;
let dir: string;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
/** A gateway with the default grace (15 minutes). */
let patient: TestGateway;
/** A gateway with GRACE_MS, and the lines it logged of runs it ended (with every other such gateway). */
let strictUrl: URL;
const apps: FastifyInstance[] = [];
const logged: { workflowId: string; runId: string; message: string }[] = [];

before(async () => {
  temporal = await startTestTemporal();
  dir = mkdtempSync(join(tmpdir(), 'test-stuck-run-'));
  connection = await NativeConnection.connect({ address: temporal.address });
  // inlineBlob calls no activity.
  worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: 'fixture-artifacts',
    workflowsPath: WORKFLOWS,
  });
  running = worker.run();
  const env = {
    MCP_TOOLS_FILE: CATALOG,
    MCP_ARTIFACT_DIR: dir,
    // The task handle at once: the polls below are the subject.
    MCP_CLIENT_WAIT_BUDGETS: `${TASKS_CLIENT.clientInfo.name}=0`,
    ...DEFAULT_CAP,
  };
  patient = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: 'unused',
    env,
  });
  strictUrl = await strictGateway(env, {});
});

/** A gateway with GRACE_MS (and `extra` settings) whose ended runs are logged into `logged`. */
async function strictGateway(env: Record<string, string>, extra: Record<string, string>): Promise<URL> {
  const config = await loadSettings({
    ...env,
    ...temporal.env,
    MCP_PORT: '0',
    MCP_STUCK_RUN_GRACE_MS: String(GRACE_MS),
    ...extra,
  });
  const backend = new TemporalBackend(temporal.client, {
    ...backendOptions(config, Buffer.from(TEST_SERVER_SECRET)),
    onStuckRun: ({ workflowId, runId }, message) => logged.push({ workflowId, runId, message }),
  });
  const app = buildApp(config, { backend });
  apps.push(app);
  return new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));
}

after(async () => {
  for (const app of apps) await app.close();
  await patient?.close();
  worker?.shutdown();
  await running;
  await connection?.close();
  await temporal?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function startStuckRun(url: URL, headers?: Record<string, string>): Promise<string> {
  const created = await rpcResult(
    url,
    'tools/call',
    { name: 'inline_blob', arguments: { bytes: OVER_4_MIB } },
    TASKS_CLIENT,
    headers,
  );
  return String(created.taskId);
}

/** tasks/get, checked to be the too-large failure. */
async function assertTooLarge(url: URL, taskId: string): Promise<void> {
  const task = await rpcResult(url, 'tasks/get', { taskId });
  assert.equal(task.status, 'failed', JSON.stringify(task).slice(0, 300));
  assert.equal((task.error as { data: { reason: string } }).data.reason, 'result_too_large');
}

/** Polls tasks/get until the task leaves working (its workflow task has failed twice). */
function settled(url: URL, taskId: string) {
  return eventually(
    async () => {
      const task = await rpcResult(url, 'tasks/get', { taskId });
      return task.status === 'working' ? undefined : task;
    },
    30_000,
    `task ${taskId} to settle`,
  );
}

/** The run of a task the gateways started without tokens (the anonymous principal's). */
const runOf = (taskId: string) => taskHandle(temporal.client, 'anonymous', taskId);
const describeRun = (taskId: string) => runOf(taskId).describe();

test('within the grace, polls and a push answer failed (result_too_large) and the run keeps running', async () => {
  const taskId = await startStuckRun(patient.url);
  const first = await settled(patient.url, taskId);
  assert.equal(first.status, 'failed', JSON.stringify(first).slice(0, 300));
  for (let poll = 0; poll < 3; poll++) await assertTooLarge(patient.url, taskId);
  const stream = await listen(patient.url, { taskIds: [taskId] });
  try {
    let pushed: Record<string, unknown> | undefined;
    while (!pushed) {
      const message = await stream.next(10_000);
      assert.ok(message, 'the stream ended before it told the task');
      if (message.method === 'notifications/tasks') pushed = message.params as Record<string, unknown>;
    }
    assert.equal(pushed.status, 'failed', JSON.stringify(pushed).slice(0, 300));
  } finally {
    stream.close();
  }
  const described = await describeRun(taskId);
  assert.equal(described.status.name, 'RUNNING', 'no read ended it');
  assert.ok((described.raw.pendingWorkflowTask?.attempt ?? 0) >= 2, 'its workflow task is failing');
});

test('past the grace, counted from the WorkflowTaskFailed event, a poll ends it, once, and logs it', async () => {
  const taskId = await startStuckRun(strictUrl);
  // Every poll answers the same, before and after the grace; the one past it ends the run.
  const closed = await eventually(
    async () => {
      await assertTooLarge(strictUrl, taskId);
      const described = await describeRun(taskId);
      return described.status.name === 'RUNNING' ? undefined : described;
    },
    30_000,
    'the strict gateway to end the run',
  );
  assert.equal(closed.status.name, 'TERMINATED');
  const history = await runOf(taskId).fetchHistory();
  const failedEvent = history.events?.find((event) => event.workflowTaskFailedEventAttributes);
  const at = failedEvent?.eventTime;
  const failedAt = Number(at?.seconds) * 1000 + Math.floor((at?.nanos ?? 0) / 1e6);
  assert.ok(Number.isFinite(failedAt), 'a WorkflowTaskFailed event');
  // The polls came every 100 ms from the first failure on: only the grace held the run up.
  assert.ok(
    (closed.closeTime?.getTime() ?? 0) >= failedAt + GRACE_MS - 1,
    `ended ${(closed.closeTime?.getTime() ?? 0) - failedAt} ms after the first failure, grace ${GRACE_MS} ms`,
  );
  // Another replica, and the strict one again, answer the ended run the same way; no second line.
  await assertTooLarge(patient.url, taskId);
  await assertTooLarge(strictUrl, taskId);
  // The line names the run: its slot's workflow id is reused run after run.
  const lines = logged.filter((line) => line.workflowId === closed.workflowId && line.runId === closed.runId);
  assert.equal(lines.length, 1, JSON.stringify(logged));
  assert.match(
    lines[0]?.message ?? '',
    new RegExp(`terminated run ${closed.workflowId} \\(run id ${closed.runId}\\): .*size cause`),
  );
});

test('under a cap of 1, a start past the grace ends the run stuck in the slot and takes it, with no poll between', async () => {
  const token = 'capped-token-0123456789abcdef';
  const headers = { authorization: `Bearer ${token}` };
  const url = await strictGateway(
    {
      MCP_TOOLS_FILE: CATALOG,
      MCP_ARTIFACT_DIR: dir,
      MCP_CLIENT_WAIT_BUDGETS: `${TASKS_CLIENT.clientInfo.name}=0`,
    },
    { MCP_MAX_RUNNING_TASKS: '1', MCP_AUTH_TOKENS: `capped:${token}` },
  );
  const stuckId = await startStuckRun(url, headers);
  const slot = temporal.client.workflow.getHandle(
    slotWorkflowId(Buffer.from(TEST_SERVER_SECRET), 'capped', 0),
  );
  // Read from Temporal, not through the gateway: no poll may end the run.
  const failing = await eventually(
    async () => {
      const described = await slot.describe();
      return (described.raw.pendingWorkflowTask?.attempt ?? 0) >= 2 ? described : undefined;
    },
    30_000,
    'the run in the slot to be failing',
  );
  const history = await slot.fetchHistory();
  const at = history.events?.find((event) => event.workflowTaskFailedEventAttributes)?.eventTime;
  const failedAt = Number(at?.seconds) * 1000 + Math.floor((at?.nanos ?? 0) / 1e6);
  // The grace is a span of time: only its passing is waited for.
  await delay(Math.max(0, failedAt + GRACE_MS - Date.now()) + 50);
  const next = await rpc(
    url,
    'tools/call',
    { name: 'inline_blob', arguments: { bytes: 10 } },
    TASKS_CLIENT,
    headers,
  );
  assert.ok(next.result, `the start was refused: ${JSON.stringify(next.error)}`);
  const ended = await temporal.client.workflow.getHandle(failing.workflowId, failing.runId).describe();
  assert.equal(ended.status.name, 'TERMINATED');
  const lines = logged.filter(
    (line) => line.workflowId === failing.workflowId && line.runId === failing.runId,
  );
  assert.equal(lines.length, 1, JSON.stringify(logged));
  assert.match(lines[0]?.message ?? '', /terminated run .*size cause/);
  // The answer a poll gives the stuck task is the same as before.
  const task = await rpcResult(url, 'tasks/get', { taskId: stuckId }, TASKS_CLIENT, headers);
  assert.equal(task.status, 'failed', JSON.stringify(task).slice(0, 300));
  assert.equal((task.error as { data: { reason: string } }).data.reason, 'result_too_large');
});
