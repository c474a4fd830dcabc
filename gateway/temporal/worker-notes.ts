// What a poll says when no worker is serving a run: the progress query went unanswered, or the
// run's workflow task has waited for a worker longer than a query may. Pure.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { GRPC, grpcCode, isDeadline } from './errors.ts';

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

/** Temporal's PENDING_WORKFLOW_TASK_STATE_SCHEDULED: waiting for a worker to take it. */
const SCHEDULED = 1;

/**
 * A note when the run's workflow task has waited for a worker at least `afterMs` (as long as a
 * progress query may take): read from the describe alone, for runs whose progress is published.
 */
export function unpickedNote(
  description: WorkflowExecutionDescription,
  afterMs: number,
  now = Date.now(),
): string | undefined {
  const task = description.raw.pendingWorkflowTask;
  const scheduled = task?.state === SCHEDULED ? task.scheduledTime : undefined;
  if (!scheduled?.seconds) return undefined;
  const waitedMs = now - (Number(scheduled.seconds) * 1000 + Math.floor((scheduled.nanos ?? 0) / 1e6));
  if (waitedMs < afterMs) return undefined;
  return (
    `The run is in progress, but no worker is polling task queue "${description.taskQueue}" right now ` +
    `(its next step has waited ${(waitedMs / 1000).toFixed(1)} s for one); the progress shown is the last ` +
    `it published. ${SAFE}`
  );
}
