// What Temporal returned for a run (a describe, a result or the error it threw, a listing's status, a
// workflow task's failure cause, a timestamp) as the gateway's state of it: the one place a run's
// status is derived. Pure.
import { type WorkflowExecutionDescription, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import protos from '@temporalio/proto';
import { TOOL_ERROR_TYPE, type ToolProgress } from '../../workflows/mcp-contract.ts';
import type { RunTrace } from './run-memo.ts';
import type { TaskRef } from './task-ids.ts';

/** The progress query's answer: the contract's fields, and whatever else the workflow adds. */
export type ProgressAnswer = ToolProgress & Record<string, unknown>;

export type ExecutionState =
  /**
   * `progress` is absent when the tool has no progress query or no worker answered it (`note` then
   * says why); `heartbeat` is the latest heartbeat details of the activity in flight, if any.
   */
  | { status: 'running'; progress?: ProgressAnswer; heartbeat?: unknown; note?: string }
  | { status: 'completed'; result: unknown }
  /**
   * `toolError`: the workflow failed with an McpToolError: the tool answered, with an error, and
   * `message` is its message. Otherwise the run broke (failed, terminated, timed out) and `message`
   * says how, after the run's name: "was terminated: operator".
   */
  | { status: 'failed'; toolError: boolean; reason: string; message: string }
  | { status: 'cancelled' };

export type RunningState = Extract<ExecutionState, { status: 'running' }>;

/** Whether a running run waits for a person: its progress answer has outstanding input requests. */
export function hasInputRequests(state: ExecutionState): boolean {
  return state.status === 'running' && Object.keys(state.progress?.inputRequests ?? {}).length > 0;
}

/**
 * One run in Temporal: its workflow id and run id. Under the running-task cap a workflow id is a
 * slot's, run after run (slots.ts), so a task is one run of it: every wait, signal and cancel names
 * the run.
 */
export interface RunRef {
  workflowId: string;
  runId?: string;
  /** The task the run is, where it differs from the workflow id (for logs and spans). */
  taskId?: string;
}

/** What the gateway knows about one run at one moment: the input of every answer shape. */
export interface ExecutionView {
  /** The task id (the same text as the workflow id for a run not under the cap; `run` names the workflow). */
  taskId: string;
  /** The run in Temporal. */
  run: RunRef;
  /** The catalog tool that started the run. */
  tool: string;
  createdAt: Date;
  lastUpdatedAt: Date;
  /** The tool arguments the run was started with (defaults applied). */
  arguments: Record<string, unknown>;
  state: ExecutionState;
  /** The start's trace context, when it was traced. */
  trace?: RunTrace;
  /** The task id as the request's edge parsed it (RunViews.read keeps it): a later read of the run takes it. */
  task?: TaskRef;
}

/** The gateway's status of a run, before any detail (its result, progress or failure). */
type RunStatus = ExecutionState['status'];

/** A run known by its status alone, as visibility lists it: no progress, no result, no failure. */
export type ListedState = { [S in RunStatus]: { status: S } }[RunStatus];

// ---- what a describe says --------------------------------------------------------------------------

/** Whether the described run is still running (any other status is closed). */
export function isRunning(description: Pick<WorkflowExecutionDescription, 'status'>): boolean {
  return description.status.name === 'RUNNING';
}

/** A workflow task failing again and again: a run that may never complete (too-large.ts looks why). */
export function isWorkflowTaskRetrying(description: Pick<WorkflowExecutionDescription, 'raw'>): boolean {
  return (description.raw.pendingWorkflowTask?.attempt ?? 0) >= 2;
}

/** A Temporal timestamp in epoch ms; undefined when it has no seconds. */
export function timestampMs(
  ts: { seconds?: unknown; nanos?: number | null } | null | undefined,
): number | undefined {
  if (ts?.seconds === undefined || ts.seconds === null) return undefined;
  return Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/**
 * A view's times: created when the memo says the gateway started the run (else the run's start);
 * last updated at the latest of start, close and its activities' heartbeats and starts, never
 * before its creation (the time the start's own answer gave).
 */
export function viewTimes(
  description: WorkflowExecutionDescription,
  memoCreatedAt: string | undefined,
): Pick<ExecutionView, 'createdAt' | 'lastUpdatedAt'> {
  const createdAt = memoCreatedAt ? new Date(memoCreatedAt) : description.startTime;
  const times = [description.startTime.getTime(), description.closeTime?.getTime()];
  for (const activity of description.raw.pendingActivities ?? []) {
    times.push(timestampMs(activity.lastHeartbeatTime), timestampMs(activity.lastStartedTime));
  }
  const lastUpdate = Math.max(
    ...times.filter((t): t is number => typeof t === 'number' && Number.isFinite(t)),
  );
  return { createdAt, lastUpdatedAt: new Date(Math.max(createdAt.getTime(), lastUpdate)) };
}

/** A listed run's status, from visibility's WorkflowExecutionStatus: any close but these is a failure. */
export function listedState(status: number | null | undefined): ListedState {
  const { WorkflowExecutionStatus } = protos.temporal.api.enums.v1;
  switch (status) {
    case WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING:
      return { status: 'running' };
    case WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED:
      return { status: 'completed' };
    case WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED:
      return { status: 'cancelled' };
    default:
      return { status: 'failed' };
  }
}

// ---- what a closed run's result says ---------------------------------------------------------------

/** The state of a run whose result came back. */
export function completedState(result: unknown): ExecutionState {
  return { status: 'completed', result: result === undefined ? null : result };
}

/**
 * The state a workflow ended in, from the error its result threw; undefined when the error is not a
 * workflow outcome (Temporal unreachable, our own abort), so the caller can treat it as an error.
 */
export function stateFromResultError(err: unknown): ExecutionState | undefined {
  if (!(err instanceof WorkflowFailedError)) return undefined;
  const chain = causes(err.cause);
  const first = chain[0];
  if (first instanceof CancelledFailure) return { status: 'cancelled' };
  if (first instanceof TerminatedFailure) {
    if (terminatedForSize(first.message)) return resultTooLargeState();
    return failed(false, 'terminated', `was terminated${suffix(first.message)}`);
  }
  if (first instanceof TimeoutFailure) {
    return failed(false, 'timed_out', `timed out${suffix(first.message)}`);
  }
  // A failure of the contract's type, the workflow's own or an activity's it let through: the tool
  // answered with an error.
  const toolError = chain.find((e) => e instanceof ApplicationFailure && e.type === TOOL_ERROR_TYPE);
  if (toolError) return failed(true, TOOL_ERROR_TYPE, toolError.message);
  const root = chain.at(-1);
  return failed(false, 'failed', `failed: ${root?.message || err.message}`);
}

function causes(err: Error | undefined): Error[] {
  const chain: Error[] = [];
  for (let e: unknown = err; e instanceof Error && chain.length < 20; e = (e as { cause?: unknown }).cause) {
    chain.push(e);
  }
  return chain;
}

function failed(toolError: boolean, reason: string, message: string): ExecutionState {
  return { status: 'failed', toolError, reason, message };
}

function suffix(message: string | undefined): string {
  return message && message !== 'Workflow execution terminated' ? `: ${message}` : '';
}

/**
 * Whether a termination was for a result too large: the gateway's own (a run stuck on it), or the
 * history service's when a completion is over the blob size limit (it names no code, only this text).
 */
function terminatedForSize(message: string | undefined): boolean {
  return message === TOO_LARGE_TERMINATION || /Result exceeds size limit/i.test(message ?? '');
}

// ---- results too large for Temporal ---------------------------------------------------------------

/** The failure reason of a run whose result Temporal would not take. */
const RESULT_TOO_LARGE = 'result_too_large';

/** The reason the gateway gives Temporal when it ends a run stuck on a result too large to complete. */
export const TOO_LARGE_TERMINATION = 'mcp gateway: the workflow result is larger than Temporal accepts';

/**
 * Workflow task failure causes that mean the completion (its result) was too large: the worker's
 * gRPC message over 4 MiB (36), payloads over the server's limit (37), the request over it (40).
 * A workflow task failing for one of these fails on every retry: the run never completes.
 */
const TOO_LARGE_TASK_CAUSES: ReadonlySet<number> = new Set([36, 37, 40]);

/** Whether a workflow task failure's cause is a size one (the run is stuck: too-large.ts). */
export function isSizeCause(cause: unknown): boolean {
  return typeof cause === 'number' && TOO_LARGE_TASK_CAUSES.has(cause);
}

/** What the client is told of a result too large for Temporal (after "The run "). */
const RESULT_TOO_LARGE_MESSAGE =
  "failed: its result is larger than Temporal accepts (a workflow result may be at most 2 MB with Temporal's " +
  'default blob size limit, and a worker can send at most 4 MiB at once). Return a large output as an artifact ' +
  'reference instead: store the bytes from an activity and return the reference (docs/artifacts.md)';

/** The state of a run whose result Temporal would not take, terminated for it or stuck on it. */
export function resultTooLargeState(): ExecutionState {
  return failed(false, RESULT_TOO_LARGE, RESULT_TOO_LARGE_MESSAGE);
}
