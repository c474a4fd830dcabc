// A run whose result is too large for Temporal can never complete: its workflow task fails on every
// retry. Seen by a view (its workflow task failing again), it is ended, so every wait and watch on
// it ends too, and the failure says why.
import type { WorkflowHandle } from '@temporalio/client';
import type { TemporalCalls } from './client.ts';
import { isClosedMeanwhile } from './errors.ts';
import {
  type ExecutionState,
  RESULT_TOO_LARGE,
  RESULT_TOO_LARGE_MESSAGE,
  TOO_LARGE_TASK_CAUSES,
  TOO_LARGE_TERMINATION,
} from './run-state.ts';

/** Ends the run when its latest workflow task failure has a size cause; its failed state then. */
export async function endIfTooLarge(
  calls: TemporalCalls,
  handle: WorkflowHandle,
): Promise<ExecutionState | undefined> {
  if (!(await stuckOnSize(calls, handle.workflowId))) return undefined;
  await calls
    .call(() => handle.terminate(TOO_LARGE_TERMINATION))
    .catch((err) => {
      if (!isClosedMeanwhile(err)) throw err;
    });
  return { status: 'failed', toolError: false, reason: RESULT_TOO_LARGE, message: RESULT_TOO_LARGE_MESSAGE };
}

/**
 * Whether the run's workflow task keeps failing because what it completes with is too large: the
 * latest WorkflowTaskFailed event (retries of a failing task add none) has a size cause.
 */
async function stuckOnSize(calls: TemporalCalls, workflowId: string): Promise<boolean> {
  const page = await calls.call(() =>
    calls.client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: calls.options.namespace,
      execution: { workflowId },
      maximumPageSize: 20,
    }),
  );
  const failure = (page.history?.events ?? []).find((event) => event.workflowTaskFailedEventAttributes);
  const cause = failure?.workflowTaskFailedEventAttributes?.cause;
  return typeof cause === 'number' && TOO_LARGE_TASK_CAUSES.has(cause);
}
