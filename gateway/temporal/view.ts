// A run as its caller may see it now: one describe (its memo names the tool, arguments and owner;
// its pending activity the latest heartbeat) and, side by side, the tool's progress query on a short
// deadline. Every read first checks the id's owner tag (task-ids.ts): no Temporal call for an id
// that is not the caller's, and a run whose memo names another principal is not found.
import {
  QueryRejectedError,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { linkToRun, tracing } from '../shared/tracing.ts';
import type { TemporalCalls } from './client.ts';
import { GRPC, grpcCode, isClosedMeanwhile, isDeadline, isRunNotFound } from './errors.ts';
import type { Caller, RunMemo } from './run-memo.ts';
import {
  type ExecutionState,
  type ExecutionView,
  type ProgressAnswer,
  RESULT_TOO_LARGE,
  RESULT_TOO_LARGE_MESSAGE,
  TOO_LARGE_TASK_CAUSES,
  TOO_LARGE_TERMINATION,
} from './run-state.ts';
import { isOwnedBy, taskIdPrefix } from './task-ids.ts';
import { outcomeOf } from './wait.ts';

/** The progress query's answer, or why there is none. */
type QueryAnswer = { progress: ProgressAnswer } | { error: unknown };

/** A run the caller owns: its handle, its description and the gateway's memo. */
export interface OwnedRun {
  handle: WorkflowHandle;
  description: WorkflowExecutionDescription;
  memo: RunMemo;
}

export class RunViews {
  constructor(
    private readonly calls: TemporalCalls,
    private readonly serverSecret: Buffer,
  ) {}

  /** Whether the id is one this gateway issued to the caller, for `idPrefix`'s tool if given (no Temporal call). */
  owns(workflowId: string, caller: Caller, idPrefix?: string): boolean {
    if (idPrefix !== undefined && taskIdPrefix(workflowId) !== idPrefix) return false;
    return isOwnedBy(this.serverSecret, caller.principal, workflowId);
  }

  /**
   * The run as the caller may see it; undefined when unknown, expired or another caller's.
   * `progressQuery` names the tool's progress query; without it a running run has no progress.
   */
  async of(
    workflowId: string,
    caller: Caller,
    options: { progressQuery?: string; idPrefix?: string } = {},
  ): Promise<ExecutionView | undefined> {
    if (!this.owns(workflowId, caller, options.idPrefix)) return undefined;
    // The progress query goes out with the describe, not after it: a poll costs the slower of the
    // two calls, not their sum. Temporal refuses it at once when the run is closed (NOT_OPEN).
    const progress = options.progressQuery ? this.query(workflowId, options.progressQuery) : undefined;
    const found = await this.owned(workflowId, caller);
    if (!found) return undefined;
    const { handle, description, memo } = found;
    if (tracing) linkToRun(memo.trace, { 'mcp.task.id': workflowId });
    const createdAt = memo.createdAt ? new Date(memo.createdAt) : description.startTime;
    const state: ExecutionState =
      description.status.name !== 'RUNNING'
        ? await this.closedState(handle)
        : await this.runningState(found, progress && (await progress));
    return {
      workflowId,
      tool: memo.tool,
      createdAt,
      // Never before the creation time the start's own answer gave.
      lastUpdatedAt: new Date(Math.max(createdAt.getTime(), lastUpdate(description).getTime())),
      arguments: memo.arguments ?? {},
      state,
      ...(memo.trace ? { trace: memo.trace } : {}),
    };
  }

  /**
   * The progress query's answer alone (no describe): what a call waiting on its own run reads to
   * see whether the workflow asks for input. Undefined when the run is not the caller's, is closed,
   * or the query fails (the wait goes on either way).
   */
  async progressOf(
    workflowId: string,
    caller: Caller,
    queryName: string,
  ): Promise<ProgressAnswer | undefined> {
    if (!this.owns(workflowId, caller)) return undefined;
    const answer = await this.query(workflowId, queryName);
    return 'progress' in answer ? answer.progress : undefined;
  }

  /**
   * The run's handle and description when it exists, was started by the gateway for a tool, and
   * its memo names the caller (a second check behind the id's owner tag).
   */
  async owned(workflowId: string, caller: Caller): Promise<OwnedRun | undefined> {
    const handle = this.calls.client.workflow.getHandle(workflowId);
    let description: WorkflowExecutionDescription;
    try {
      description = await this.calls.call(() => handle.describe());
    } catch (err) {
      if (isRunNotFound(err)) return undefined;
      throw err;
    }
    const memo = description.memo as Partial<RunMemo> | undefined;
    if (!memo || typeof memo.tool !== 'string' || memo.principal !== caller.principal) return undefined;
    return { handle, description, memo: memo as RunMemo };
  }

  /** The progress query's answer or its failure; never rejects (nobody may be awaiting it). */
  query(workflowId: string, queryName: string): Promise<QueryAnswer> {
    const handle = this.calls.client.workflow.getHandle(workflowId);
    return this.calls
      .call(() => handle.query<ProgressAnswer>(queryName), this.calls.options.queryTimeoutMs)
      .then(
        (progress) => ({ progress: isObject(progress) ? progress : {} }),
        (error: unknown) => ({ error }),
      );
  }

  /** A closed run's outcome, from its result or the failure its result throws. */
  private closedState(handle: WorkflowHandle): Promise<ExecutionState> {
    return this.calls.call(() => outcomeOf(this.calls.client, handle.workflowId));
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

  /**
   * Whether the run's workflow task keeps failing because what it completes with is too large: the
   * latest WorkflowTaskFailed event (retries of a failing task add none) has a size cause.
   */
  private async stuckOnSize(workflowId: string): Promise<boolean> {
    const page = await this.calls.call(() =>
      this.calls.client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: this.calls.options.namespace,
        execution: { workflowId },
        maximumPageSize: 20,
      }),
    );
    const failure = (page.history?.events ?? []).find((event) => event.workflowTaskFailedEventAttributes);
    const cause = failure?.workflowTaskFailedEventAttributes?.cause;
    return typeof cause === 'number' && TOO_LARGE_TASK_CAUSES.has(cause);
  }

  private async runningState(run: OwnedRun, answer: QueryAnswer | undefined): Promise<ExecutionState> {
    const { handle, description } = run;
    if (
      (description.raw.pendingWorkflowTask?.attempt ?? 0) >= 2 &&
      (await this.stuckOnSize(handle.workflowId))
    ) {
      // It can never complete: end it, so every wait and watch on it ends too, and say why.
      await this.calls
        .call(() => handle.terminate(TOO_LARGE_TERMINATION))
        .catch((err) => {
          if (!isClosedMeanwhile(err)) throw err;
        });
      return {
        status: 'failed',
        toolError: false,
        reason: RESULT_TOO_LARGE,
        message: RESULT_TOO_LARGE_MESSAGE,
      };
    }
    const heartbeat = await this.heartbeat(description);
    const withHeartbeat = heartbeat === undefined ? {} : { heartbeat };
    if (answer === undefined) return { status: 'running', ...withHeartbeat };
    if ('progress' in answer) return { status: 'running', progress: answer.progress, ...withHeartbeat };
    // It closed between the describe and the query: answer its outcome.
    if (answer.error instanceof QueryRejectedError) return this.closedState(handle);
    return {
      status: 'running',
      ...withHeartbeat,
      note: queryFailureNote(answer.error, description.taskQueue, this.calls.options.queryTimeoutMs),
    };
  }
}

/** Why there is no progress to show: most often, no worker is polling the run's task queue. */
export function queryFailureNote(err: unknown, taskQueue: string, queryTimeoutMs: number): string {
  if (isDeadline(err) || grpcCode(err) === GRPC.FAILED_PRECONDITION) {
    return (
      `The run is in progress, but no worker is polling task queue "${taskQueue}" right now ` +
      `(no answer to the progress query within ${(queryTimeoutMs / 1000).toFixed(1)} s). ` +
      'The run is safe in Temporal and continues when a worker is back.'
    );
  }
  const cause = (err as { cause?: Error }).cause?.message;
  return `The run is in progress; progress is unavailable right now (${cause ?? (err as Error).message}).`;
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

function timestampMs(
  ts: { seconds?: unknown; nanos?: number | null } | null | undefined,
): number | undefined {
  if (!ts || ts.seconds === undefined || ts.seconds === null) return undefined;
  return Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** The latest thing that happened to the run: start, close, or an activity's last heartbeat. */
function lastUpdate(description: WorkflowExecutionDescription): Date {
  const times = [description.startTime.getTime(), description.closeTime?.getTime()];
  for (const activity of description.raw.pendingActivities ?? []) {
    times.push(timestampMs(activity.lastHeartbeatTime), timestampMs(activity.lastStartedTime));
  }
  return new Date(Math.max(...times.filter((t): t is number => typeof t === 'number' && Number.isFinite(t))));
}

function isObject(value: unknown): value is ProgressAnswer {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
