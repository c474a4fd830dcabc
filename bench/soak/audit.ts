// The accounting, from Temporal's own records: every mineChain run on the soak's task queue, listed
// through the Temporal client (a run the list shows running is described before it counts as
// unfinished), with its McpPrincipal search attribute and the task and idempotency key its memo keeps. Each
// accepted call must have exactly one run, closed completed or cancelled, under its own principal,
// and no input another principal sent for it (PROBE_MARKER) in its history.

import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import protos from '@temporalio/proto';
import { pollUntil } from '../../common/poll.ts';
import { MCP_PRINCIPAL } from '../../gateway/temporal/run-memo.ts';
import { MINE_CHAIN_WORKFLOW } from '../../workflows/mining/types.ts';
import { type Finding, type Job, PROBE_MARKER } from './job-types.ts';
import { sameTask } from './same-task.ts';

/** How long visibility gets to list every accepted call's run, closed. */
const VISIBILITY_WAIT_MS = 10_000;

interface RunRecord {
  /** The task id: the run's memo names it under the running-task cap, else its workflow id. */
  workflowId: string;
  /** The run in Temporal. */
  run: { workflowId: string; runId: string };
  status: string;
  principal?: string;
  key?: string;
}

export interface Audit {
  runs: number;
  completed: number;
  cancelled: number;
  /** Accepted calls with no run, or a run that ended neither completed nor cancelled. */
  lost: string[];
  /** Accepted calls whose run was still running when the drain ended. */
  unfinished: string[];
  /** Keys with more than one run. */
  duplicates: string[];
  /** Runs of calls refused with a reason that says nothing started. */
  refusedButRan: string[];
  /** Runs the list showed running (or not at all) that a describe found closed. */
  visibilityLag: number;
  findings: Finding[];
}

/** Audits `jobs` against what Temporal holds on `taskQueue`. */
export async function auditRuns(address: string, taskQueue: string, jobs: readonly Job[]): Promise<Audit> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const accepted = jobs.filter((job) => job.accepted);
    const runs = await settledRuns(client, taskQueue, accepted);
    const byKey = new Map<string, RunRecord[]>();
    for (const run of runs) if (run.key) byKey.set(run.key, [...(byKey.get(run.key) ?? []), run]);
    const audit: Audit = {
      runs: runs.length,
      completed: 0,
      cancelled: 0,
      lost: [],
      unfinished: [],
      duplicates: [],
      refusedButRan: [],
      visibilityLag: 0,
      findings: [],
    };
    for (const job of accepted) judgeJob(audit, job, await truth(client, byKey.get(job.key) ?? [], audit));
    for (const run of runs) await foreignInput(client, run, audit);
    const byTask = new Map(runs.map((run) => [run.workflowId, run.run]));
    for (const list of [audit.lost, audit.unfinished])
      for (const [i, line] of list.entries()) list[i] = `${line}${await story(client, line, byTask)}`;
    const known = new Set(jobs.map((job) => job.key));
    for (const job of jobs)
      if (!job.accepted && job.refused !== 'gave_up' && byKey.has(job.key))
        audit.refusedButRan.push(`${job.key} (refused ${job.refused})`);
    for (const run of runs)
      if (!run.key || !known.has(run.key))
        audit.findings.push({
          kind: 'wrong_answer',
          text: `run ${run.workflowId} (key ${run.key}) belongs to no call`,
        });
    return audit;
  } finally {
    await connection.close();
  }
}

/** The runs, once visibility lists every accepted call's run closed (or the wait is over). */
async function settledRuns(
  client: Client,
  taskQueue: string,
  accepted: readonly Job[],
): Promise<RunRecord[]> {
  let runs: RunRecord[] = [];
  const listed = async () => {
    runs = [];
    const query = `TaskQueue = "${taskQueue}" AND WorkflowType = "${MINE_CHAIN_WORKFLOW}"`;
    for await (const info of client.workflow.list({ query })) runs.push(record(info));
    const closed = new Set(runs.filter((run) => run.status !== 'RUNNING').map((run) => run.key));
    return accepted.every((job) => closed.has(job.key)) ? runs : undefined;
  };
  return pollUntil(listed, { timeoutMs: VISIBILITY_WAIT_MS, intervalMs: 500 }).catch(() => runs);
}

function record(info: Omit<WorkflowExecutionInfo, 'raw'>): RunRecord {
  const memo = (info.memo ?? {}) as { task?: string; arguments?: { idempotency_key?: unknown } };
  const key = memo.arguments?.idempotency_key;
  const principal = info.typedSearchAttributes.get(MCP_PRINCIPAL);
  return {
    workflowId: memo.task ?? info.workflowId,
    run: { workflowId: info.workflowId, runId: info.runId },
    status: info.status.name,
    ...(principal ? { principal } : {}),
    ...(typeof key === 'string' ? { key } : {}),
  };
}

/**
 * The call's runs as the list shows them; a single run it shows running is described (describe
 * reads the run itself, the list an index that may lag).
 */
async function truth(client: Client, listed: RunRecord[], audit: Audit): Promise<RunRecord[]> {
  const [only] = listed;
  if (listed.length !== 1 || !only || only.status !== 'RUNNING') return listed;
  try {
    const run = record(await client.workflow.getHandle(only.run.workflowId, only.run.runId).describe());
    if (run.status !== (listed[0]?.status ?? 'absent')) audit.visibilityLag++;
    return [run];
  } catch {
    return listed;
  }
}

/** What a run's history says: the signals it received, its last events, why it failed or was ended. */
async function story(client: Client, line: string, byTask: Map<string, RunRecord['run']>): Promise<string> {
  const run = byTask.get(/its run (\S+) is /.exec(line)?.[1] ?? '');
  if (!run) return '';
  try {
    const events = (await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory()).events ?? [];
    const type = (event: (typeof events)[number]) =>
      String(protos.temporal.api.enums.v1.EventType[event.eventType ?? 0]).replace('EVENT_TYPE_', '');
    const signals = events.filter((event) => type(event) === 'WORKFLOW_EXECUTION_SIGNALED').length;
    const last = events.at(-1);
    const why =
      last?.workflowExecutionFailedEventAttributes?.failure?.message ??
      last?.workflowExecutionTerminatedEventAttributes?.reason ??
      undefined;
    return (
      `; history: ${events.length} events, ${signals} signal(s), last ${events.slice(-4).map(type).join(' > ')}` +
      (why ? ` (${why})` : '')
    );
  } catch (err) {
    return `; history unreadable: ${(err as Error).message}`;
  }
}

/** A signal in the run's history carrying an input another principal's probe sent: a finding. */
async function foreignInput(client: Client, run: RunRecord, audit: Audit): Promise<void> {
  let events: protos.temporal.api.history.v1.IHistoryEvent[];
  try {
    events = (await client.workflow.getHandle(run.run.workflowId, run.run.runId).fetchHistory()).events ?? [];
  } catch (err) {
    audit.findings.push({
      kind: 'wrong_answer',
      text: `run ${run.workflowId}: its history could not be read for foreign input: ${(err as Error).message}`,
    });
    return;
  }
  const marker = Buffer.from(PROBE_MARKER);
  for (const event of events) {
    const payloads = event.workflowExecutionSignaledEventAttributes?.input?.payloads ?? [];
    if (payloads.some((payload) => Buffer.from(payload.data ?? []).includes(marker)))
      audit.findings.push({
        kind: 'cross_principal',
        text: `${run.principal}'s run ${run.workflowId} took another principal's input: ${Buffer.from(
          payloads[0]?.data ?? [],
        )
          .toString()
          .slice(0, 200)}`,
      });
  }
}

function judgeJob(audit: Audit, job: Job, runs: readonly RunRecord[]): void {
  const what = `${job.principal.name} ${job.key} (${job.kind}, ${job.tasks ? 'tasks' : 'plain'})`;
  const [run] = runs;
  if (!run) {
    audit.lost.push(`${what}: no run in Temporal`);
    return;
  }
  if (runs.length > 1)
    audit.duplicates.push(`${what}: ${runs.length} runs (${runs.map((r) => r.workflowId).join(', ')})`);
  if (!sameTask(run.workflowId, job.workflowId))
    audit.findings.push({
      kind: 'wrong_answer',
      text: `${what}: answered ${job.workflowId}, its run is ${run.workflowId}`,
    });
  if (run.principal !== job.principal.name)
    audit.findings.push({ kind: 'cross_principal', text: `${what}: its run belongs to ${run.principal}` });
  if (run.status === 'COMPLETED') audit.completed++;
  else if (run.status === 'CANCELLED') audit.cancelled++;
  else
    (run.status === 'RUNNING' ? audit.unfinished : audit.lost).push(
      `${what}: its run ${run.workflowId} is ${run.status}; the client saw ${job.final ?? 'no end'}` +
        (job.kind === 'input' ? `, ${job.answered ? 'answered' : 'did not answer'} its input` : '') +
        `; its last calls: ${job.trail.join(', ')}`,
    );
  const temporal =
    run.status === 'COMPLETED' ? 'completed' : run.status === 'CANCELLED' ? 'cancelled' : run.status;
  if (job.final !== undefined && job.final !== 'abandoned' && job.final !== temporal)
    audit.findings.push({
      kind: 'wrong_answer',
      text: `${what}: the client saw ${job.final}, Temporal says ${temporal}`,
    });
}
