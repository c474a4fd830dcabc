// A run as its caller may see it now: one describe (its memo names the tool, arguments and owner,
// and carries the progress the run published; its pending activity the latest heartbeat). Only a
// run that does not publish is asked the tool's progress query, on a short deadline (side by side
// with the describe when the tool only answers the query). Every read first checks the id's owner
// tag (task-ids.ts): no Temporal call for an id that is not the caller's, and a run whose memo names
// another principal is not found.
import { QueryRejectedError, type WorkflowExecutionDescription } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { PROGRESS_MEMO } from '../../workflows/mcp-contract.ts';
import type { Caller } from '../shared/caller.ts';
import { linkToRun, tracing } from '../shared/tracing.ts';
import type { TemporalCalls } from './client.ts';
import { GRPC, grpcCode, isDeadline } from './errors.ts';
import { type OwnedRun, RunLookup } from './run-lookup.ts';
import {
  type ExecutionState,
  type ExecutionView,
  isRunning,
  isWorkflowTaskRetrying,
  type ProgressAnswer,
  type RunRef,
  timestampMs,
  viewTimes,
} from './run-state.ts';
import { isOwnedBy, listedTaskId, type TaskName, taskIdPrefix, taskIdText, taskRun } from './task-ids.ts';
import { type StuckRunPolicy, stuckRunState } from './too-large.ts';
import { outcomeOf } from './wait.ts';

/** The progress query's answer, or why there is none. */
export type QueryAnswer = { progress: ProgressAnswer } | { error: unknown };

/** Where a tool's runs tell their progress. */
export interface ProgressSource {
  /** The query that answers it. */
  progressQuery?: string;
  /** The runs publish it to their memo: the query only for a run whose memo has none. */
  published?: boolean;
}

export class RunViews {
  private readonly lookup: RunLookup;

  constructor(
    private readonly calls: TemporalCalls,
    private readonly serverSecret: Buffer,
    private readonly stuckRuns: StuckRunPolicy,
  ) {
    this.lookup = new RunLookup(calls, serverSecret);
  }

  /** Whether the id is one this gateway issued to the caller, for `idPrefix`'s tool if given (no Temporal call). */
  owns(workflowId: TaskName, caller: Caller, idPrefix?: string): boolean {
    if (idPrefix !== undefined && taskIdPrefix(workflowId) !== idPrefix) return false;
    return isOwnedBy(this.serverSecret, caller.principal, workflowId);
  }

  /** The task id of a run visibility listed (task-ids.ts), when it is the caller's (no Temporal call). */
  listedTask(
    run: { workflowId: string; runId: string; memoTask: unknown },
    caller: Caller,
  ): string | undefined {
    const taskId = listedTaskId(this.serverSecret, caller.principal, run);
    return this.owns(taskId, caller) ? taskId : undefined;
  }

  /**
   * The run as the caller may see it; undefined when unknown, expired or another caller's.
   * Without a published progress or a progress query, a running run has no progress.
   */
  async read(
    task: TaskName,
    caller: Caller,
    options: ProgressSource & { idPrefix?: string } = {},
  ): Promise<ExecutionView | undefined> {
    if (!this.owns(task, caller, options.idPrefix)) return undefined;
    const asked = this.queryWithDescribe(task, caller, options);
    const found = await this.owned(task, caller);
    const workflowId = taskIdText(task);
    if (!found) return undefined;
    const { description, memo } = found;
    if (tracing) linkToRun(memo.trace, { 'mcp.task.id': workflowId });
    const state: ExecutionState = isRunning(description)
      ? await this.runningState(found, await this.progressNow(found, options, asked))
      : await this.closedState(found.run);
    return {
      taskId: workflowId,
      run: found.run,
      tool: memo.tool,
      ...viewTimes(description, memo.createdAt),
      arguments: memo.arguments ?? {},
      state,
      ...(memo.trace ? { trace: memo.trace } : {}),
      ...(typeof task === 'string' ? {} : { task }),
    };
  }

  /**
   * The run's progress alone: what a call waiting on its own run reads to see whether the workflow
   * asks for input. Undefined when the run is not the caller's, is closed, or the query fails (the
   * wait goes on either way).
   */
  async progressOf(
    task: TaskName,
    caller: Caller,
    source: ProgressSource,
  ): Promise<ProgressAnswer | undefined> {
    if (!this.owns(task, caller)) return undefined;
    let answer: QueryAnswer | undefined;
    if (source.published) {
      const found = await this.owned(task, caller);
      if (!found || !isRunning(found.description)) return undefined;
      answer = await this.progressNow(found, source);
    } else if (source.progressQuery) {
      answer = await this.query(this.currentRun(task, caller), source.progressQuery);
    }
    return answer && 'progress' in answer ? answer.progress : undefined;
  }

  /**
   * A tool that only answers the query is asked with the describe, not after it: a poll costs the
   * slower of the two calls, not their sum (Temporal refuses it at once when the run is closed).
   */
  queryWithDescribe(
    taskId: TaskName,
    caller: Caller,
    source: ProgressSource,
  ): Promise<QueryAnswer> | undefined {
    return source.progressQuery && !source.published
      ? this.query(this.currentRun(taskId, caller), source.progressQuery)
      : undefined;
  }

  /**
   * The task's run as its id names it (without a run part, its workflow's current run: a slot's run is
   * never replaced while it runs); what it answers is used only once a describe has seen it running.
   */
  private currentRun(taskId: TaskName, caller: Caller): RunRef {
    return taskRun(this.serverSecret, caller.principal, taskId);
  }

  /**
   * A running run's progress: what it published to its memo when the tool publishes, else the
   * query's answer (`asked`, when it went out with the describe); undefined without either.
   */
  progressNow(
    run: OwnedRun,
    source: ProgressSource,
    asked?: Promise<QueryAnswer>,
  ): Promise<QueryAnswer | undefined> {
    const published = run.memo[PROGRESS_MEMO];
    if (source.published && isObject(published)) {
      if (!source.progressQuery || !mayJustBeAnswered(run, published))
        return Promise.resolve({ progress: published });
      // The query sees what the run has received, its memo only what a finished step published.
      return this.query(run.run, source.progressQuery).then((answer) =>
        'progress' in answer ? answer : this.refusalIfClosed(run, { progress: published }),
      );
    }
    if (asked) return asked;
    if (!source.progressQuery) return Promise.resolve(undefined);
    return this.query(run.run, source.progressQuery);
  }

  /** The caller's run of the task (run-lookup.ts); undefined when there is none. */
  owned(taskId: TaskName, caller: Caller): Promise<OwnedRun | undefined> {
    return this.lookup.owned(taskId, caller);
  }

  /** The progress query's answer or its failure; never rejects (nobody may be awaiting it). */
  query(run: RunRef, queryName: string): Promise<QueryAnswer> {
    const handle = this.calls.client.workflow.getHandle(run.workflowId, run.runId);
    return this.calls
      .call(() => handle.query<ProgressAnswer>(queryName), this.calls.options.queryTimeoutMs)
      .then(
        (progress) => ({ progress: isObject(progress) ? progress : {} }),
        (error: unknown) => ({ error }),
      );
  }

  /**
   * After a failed query: a refusal if the run has closed meanwhile (its outcome is then read),
   * else `otherwise` (the query may only have lacked a worker).
   */
  private async refusalIfClosed(run: OwnedRun, otherwise: QueryAnswer): Promise<QueryAnswer> {
    const latest = await this.calls.call(() => run.handle.describe()).catch(() => undefined);
    if (!latest || isRunning(latest)) return otherwise;
    return { error: new QueryRejectedError(latest.status.code) };
  }

  /** A closed run's outcome, from its result or the failure its result throws. */
  private closedState(run: RunRef): Promise<ExecutionState> {
    return this.calls.call(() => outcomeOf(this.calls.client, run));
  }

  /** The heartbeat details, through the client's codecs (a detail: undefined when they fail). */
  private async heartbeat(description: WorkflowExecutionDescription): Promise<unknown> {
    let payload = heartbeatPayload(description);
    if (!payload) return undefined;
    try {
      for (const codec of [...this.calls.client.options.loadedDataConverter.payloadCodecs].reverse())
        [payload] = await codec.decode([payload as Payload]);
    } catch {
      return undefined;
    }
    return latestHeartbeat(description, payload);
  }

  private async runningState(run: OwnedRun, answer: QueryAnswer | undefined): Promise<ExecutionState> {
    const { description } = run;
    // A workflow task failing again and again may be one that can never complete.
    if (isWorkflowTaskRetrying(description)) {
      const stuck = await stuckRunState(this.calls, description, this.stuckRuns);
      if (stuck) return stuck;
    }
    const heartbeat = await this.heartbeat(description);
    const withHeartbeat = heartbeat === undefined ? {} : { heartbeat };
    if (answer === undefined) return { status: 'running', ...withHeartbeat };
    if ('progress' in answer) {
      const note = unpickedNote(description, this.calls.options.queryTimeoutMs);
      return { status: 'running', progress: answer.progress, ...withHeartbeat, ...(note ? { note } : {}) };
    }
    // It closed between the describe and the query: answer its outcome.
    if (answer.error instanceof QueryRejectedError) return this.closedState(run.run);
    return {
      status: 'running',
      ...withHeartbeat,
      note: queryFailureNote(answer.error, description.taskQueue, this.calls.options.queryTimeoutMs),
    };
  }
}

/** The stored payload of the latest heartbeat of the activity in flight (encrypted with a codec). */
function heartbeatPayload(description: WorkflowExecutionDescription): Payload | undefined {
  return (description.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0] ?? undefined) as
    | Payload
    | undefined;
}

/** The latest heartbeat details of the activity in flight, if any (`payload`: it decoded by the codec). */
export function latestHeartbeat(
  description: WorkflowExecutionDescription,
  payload: Payload | undefined = heartbeatPayload(description),
): unknown {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
}

/**
 * Whether a run asking for input may have been answered since it published: a step is pending (a
 * signal it has not taken yet makes one). Then the published requests may be answered ones.
 */
function mayJustBeAnswered(run: OwnedRun, published: ProgressAnswer): boolean {
  const asks = Object.keys(published.inputRequests ?? {}).length > 0;
  return asks && Boolean(run.description.raw.pendingWorkflowTask);
}

function isObject(value: unknown): value is ProgressAnswer {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Temporal's PENDING_WORKFLOW_TASK_STATE_SCHEDULED: waiting for a worker to take it. */
const SCHEDULED = 1;

/**
 * A note when the run's workflow task has waited for a worker at least `afterMs` (as long as a
 * progress query may take): read from the describe alone, for runs whose progress is published.
 */
function unpickedNote(description: WorkflowExecutionDescription, afterMs: number): string | undefined {
  const task = description.raw.pendingWorkflowTask;
  const scheduledMs = timestampMs(task?.state === SCHEDULED ? task.scheduledTime : undefined);
  if (scheduledMs === undefined) return undefined;
  const waitedMs = Date.now() - scheduledMs;
  if (waitedMs < afterMs) return undefined;
  return (
    `The run is in progress, but no worker is polling task queue "${description.taskQueue}" right now ` +
    `(its next step has waited ${(waitedMs / 1000).toFixed(1)} s for one); the progress shown is the last ` +
    `it published. ${SAFE}`
  );
}

const SAFE = 'The run is safe in Temporal and continues when a worker is back.';

/** Why there is no progress to show: most often, no worker is polling the run's task queue. */
export function queryFailureNote(err: unknown, taskQueue: string, queryTimeoutMs: number): string {
  if (isDeadline(err) || grpcCode(err) === GRPC.FAILED_PRECONDITION) {
    return (
      `The run is in progress, but no worker is polling task queue "${taskQueue}" right now ` +
      `(no answer to the progress query within ${(queryTimeoutMs / 1000).toFixed(1)} s). ${SAFE}`
    );
  }
  const cause = (err as { cause?: Error }).cause?.message;
  return `The run is in progress; progress is unavailable right now (${cause ?? (err as Error).message}).`;
}
