// One long call as one trace, read back from a real Jaeger through its query API: the caller's
// traceparent (in the request's _meta) is the parent of the gateway's tools/call span; under it the
// Temporal start and the wait budget (ending with the budget spent); under the start, in the
// worker, the workflow run and its activities, the run closing after its last activity; and the
// tasks/get that delivered the result is a trace of its own, linked to the start's span. The
// gateway and worker are real processes exporting OTLP/HTTP; the trace id is in the answers'
// _meta and on the request's log line. A Python worker (temporalio.contrib.opentelemetry) joins
// the same trace.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ANONYMOUS } from '../gateway/mcp/handler.ts';
import { taskRun } from '../gateway/temporal/task-ids.ts';
import { freePort } from '../launcher/free-port.ts';
import type { Jaeger } from '../launcher/jaeger.ts';
import { calibrate, difficultyFor, type MinerSpeed } from './support/gateway-difficulty.ts';
import { type GatewayProcess, startGatewayProcess } from './support/gateway-process.ts';
import { findTraces, type QueriedSpan, startTestJaeger, traceWhen } from './support/jaeger.ts';
import { rpcResult } from './support/mcp-http.ts';
import { startPythonWorker } from './support/python-worker.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const TASK_QUEUE = `tracing-${process.pid}`;
const BLOCKS = 3;
// Short, and each block long: three blocks found within it by luck happen less than once in 500 runs.
const WAIT_BUDGET_MS = 300;

let jaeger: Jaeger;
let temporal: TestTemporal;
let worker: WorkerProcess;
let gateway: GatewayProcess;
let speed: MinerSpeed;

function otelEnv(service: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    OTEL_SERVICE_NAME: service,
    // Spans leave within 100 ms, so the test reads them back without waiting long.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
}

const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1];

function only(spans: QueriedSpan[], name: string, parent?: QueriedSpan): QueriedSpan {
  const found = spans.filter((s) => s.name === name && (!parent || s.parentSpanId === parent.spanId));
  assert.equal(
    found.length,
    1,
    `one "${name}" span${parent ? ` under "${parent.name}"` : ''}: ${names(spans)}`,
  );
  return found[0] as QueriedSpan;
}

const names = (spans: QueriedSpan[]) => spans.map((s) => `${s.service}:${s.name}`).join(', ');

before(async () => {
  jaeger = await startTestJaeger();
  temporal = await startTestTemporal();
  worker = startWorker({
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    ...otelEnv('mcp-worker'),
  });
  gateway = await startGatewayProcess(await freePort(), {
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MCP_SERVER_SECRET: 'tracing-test-secret-0123456789abcdef0123456789',
    MCP_WAIT_BUDGET_MS: String(WAIT_BUDGET_MS),
    MCP_POLL_INTERVAL_MS: '250',
    LOG_FORMAT: 'json',
    ...otelEnv('mcp-gateway'),
  });
  await worker.ready;
  speed = await calibrate(gateway.url);
});

after(async () => {
  await gateway?.stop().catch(() => {});
  await worker?.stop().catch(() => {});
  await temporal?.close();
  await jaeger?.stop();
});

describe('tracing through a real Jaeger', () => {
  it('shows one long call as request → start → workflow → activities → completion, and the poll that delivered it linked to it', async () => {
    const callerTraceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    // Each block ~1.5 s on average (proof of work: some far shorter): the run outlasts the 0.3 s
    // budget, so its result comes by a poll.
    const difficulty = difficultyFor(speed, 1.5);
    const created = await rpcResult(gateway.url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty, blocks: BLOCKS },
      _meta: { traceparent: `00-${callerTraceId}-${callerSpanId}-01`, tracestate: 'caller=1' },
    });
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const taskId = String(created.taskId);
    const createdMeta = created._meta as Record<string, unknown>;
    assert.equal(traceIdOf(createdMeta.traceparent), callerTraceId, 'the answer names the caller’s trace');

    // Polls without trace context of their own: each one is a new trace.
    const delivered = await eventually(
      async () => {
        const task = await rpcResult(gateway.url, 'tasks/get', { taskId });
        return task.status === 'working' ? undefined : task;
      },
      120_000,
      'the run to complete',
      250,
    );
    assert.equal(delivered.status, 'completed', JSON.stringify(delivered));
    const pollTraceId = traceIdOf((delivered._meta as Record<string, unknown>).traceparent);
    assert.notEqual(pollTraceId, callerTraceId);

    // The call's trace, once every span has arrived from both processes.
    const spans = await traceWhen(
      jaeger,
      callerTraceId,
      (s) =>
        s.filter((x) => x.name === 'RunActivity:mineBlock').length === BLOCKS &&
        s.some((x) => x.name === 'RunWorkflow:mineChain') &&
        s.some((x) => x.name === 'tools/call start_mining') &&
        s.some((x) => x.name === 'wait budget'),
      'the call’s trace in Jaeger',
    );
    const request = only(spans, 'tools/call start_mining');
    assert.equal(request.service, 'mcp-gateway');
    assert.equal(request.parentSpanId, callerSpanId, 'the caller’s span is the request span’s parent');
    assert.equal(request.tags['mcp.method.name'], 'tools/call');
    assert.equal(request.tags['gen_ai.tool.name'], 'start_mining');
    assert.equal(request.tags['mcp.task.id'], taskId);
    assert.equal(request.tags['mcp.outcome'], 'task');
    assert.equal(request.tags['enduser.id'], undefined, 'no principal unless MCP_TRACE_PRINCIPAL');

    const start = only(spans, 'StartWorkflow:mineChain', request);
    // Under the running-task cap the run's workflow id is its slot's.
    const secret = Buffer.from('tracing-test-secret-0123456789abcdef0123456789');
    const { workflowId } = taskRun(secret, ANONYMOUS, taskId);
    assert.equal(start.tags.temporalWorkflowId, workflowId);
    const wait = only(spans, 'wait budget', request);
    assert.equal(wait.tags['mcp.task.id'], taskId, 'the wait names the task, not its slot');
    assert.equal(wait.tags['mcp.wait.end'], 'budget_spent');
    assert.ok(wait.end - wait.start >= WAIT_BUDGET_MS * 1000 * 0.9, 'the wait lasted the budget');

    const run = only(spans, 'RunWorkflow:mineChain', start);
    assert.equal(run.service, 'mcp-worker');
    assert.equal(run.tags.temporalWorkflowId, workflowId);
    assert.equal(run.tags.memo, undefined, 'no memo (tool arguments) on workflow spans');
    const scheduled = spans.filter(
      (s) => s.name === 'StartActivity:mineBlock' && s.parentSpanId === run.spanId,
    );
    assert.equal(scheduled.length, BLOCKS, names(spans));
    const activities = scheduled.map((s) => only(spans, 'RunActivity:mineBlock', s));
    for (const activity of activities) assert.equal(activity.service, 'mcp-worker');
    // Completion: the run closes after its last block, after the budget ended.
    const lastBlockEnd = Math.max(...activities.map((a) => a.end));
    assert.ok(run.end >= lastBlockEnd, 'the run ends after its last activity');
    assert.ok(run.end > wait.end, 'the run outlasted the wait budget');
    assert.ok(run.tags.error === undefined, 'the run ended without error');

    // The poll that delivered the result: its own trace, linked to the start.
    const poll = await traceWhen(
      jaeger,
      pollTraceId as string,
      (s) => s.some((x) => x.name === `tasks/get ${taskId}`),
      'the delivering poll’s trace',
    );
    const get = only(poll, `tasks/get ${taskId}`);
    assert.equal(get.parentSpanId, undefined, 'a poll is a root, not a child of the closed call');
    assert.equal(get.tags['mcp.task.status'], 'completed');
    assert.deepEqual(get.links, [{ traceId: callerTraceId, spanId: request.spanId }]);
    const describe = only(poll, 'DescribeWorkflow', get);
    assert.equal(describe.service, 'mcp-gateway');

    // Searching by the task id finds the call and every poll of it.
    const traces = await findTraces(jaeger, { service: 'mcp-gateway', tags: { 'mcp.task.id': taskId } });
    assert.ok(traces.includes(callerTraceId) && traces.includes(pollTraceId as string), traces.join(','));

    // The request's log line carries the trace id.
    const lines = gateway
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(
      lines.some((l) => l.traceId === callerTraceId && l.taskId === taskId && l.msg === 'tools/call'),
      'the tools/call line names the trace',
    );
  });

  it('carries the trace into a Python workflow: its run is a child of the gateway’s start', async () => {
    const python = startPythonWorker({
      ...temporal.env,
      TEMPORAL_TASK_QUEUE: 'fixture-review',
      ...otelEnv('python-worker'),
    });
    const catalogGateway = await startGatewayProcess(await freePort(), {
      ...temporal.env,
      MCP_TOOLS_FILE: fileURLToPath(new URL('./fixtures/catalog.yaml', import.meta.url)),
      MCP_SERVER_SECRET: 'tracing-test-secret-0123456789abcdef0123456789',
      LOG_FORMAT: 'json',
      ...otelEnv('mcp-gateway'),
    });
    try {
      await python.ready;
      const callerTraceId = randomBytes(16).toString('hex');
      const created = await rpcResult(catalogGateway.url, 'tools/call', {
        name: 'review_draft',
        arguments: { text: 'traced draft', steps: 1, step_ms: 50 },
        _meta: { traceparent: `00-${callerTraceId}-${randomBytes(8).toString('hex')}-01` },
      });
      const taskId = String(created.taskId);
      const spans = await traceWhen(
        jaeger,
        callerTraceId,
        (s) =>
          s.some((x) => x.name === 'tools/call review_draft') &&
          s.some((x) => x.service === 'python-worker' && x.name === 'RunWorkflow:reviewDraft'),
        'the Python run’s span in the call’s trace',
      );
      const request = only(spans, 'tools/call review_draft');
      const start = only(spans, 'StartWorkflow:reviewDraft', request);
      const run = only(spans, 'RunWorkflow:reviewDraft', start);
      assert.equal(run.service, 'python-worker');
      await rpcResult(catalogGateway.url, 'tasks/cancel', { taskId });
    } finally {
      await catalogGateway.stop().catch(() => {});
      await python.stop().catch(() => {});
    }
  });
});
