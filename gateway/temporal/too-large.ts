// A run whose workflow task fails for a size cause (a result, an activity input or a memo larger than
// Temporal takes) goes nowhere until a worker changes: a view answers it failed, result_too_large,
// and leaves the run alone, so a fixed worker may still recover it. Ending it is a policy: once it
// has been stuck past the grace, counted from its WorkflowTaskFailed event (Temporal's own time, so
// every replica agrees), a view ends it, so every wait and watch on it ends too; so does a start that
// finds its slot of the running-task cap held by it (slots.ts), so it frees its slot with nobody polling.
import type { TemporalCalls } from './client.ts';
import { isClosedMeanwhile } from './errors.ts';
import {
  type ExecutionState,
  isSizeCause,
  resultTooLargeState,
  TOO_LARGE_TERMINATION,
  timestampMs,
} from './run-state.ts';

/** When the gateway ends a run stuck on a size cause. */
export interface StuckRunPolicy {
  /** How long a run may stay stuck before a view ends it; 0: at first sight. */
  graceMs: number;
  /** Told, for the log, of each run the gateway ended or failed to end (the run, and why). */
  log?: (run: Run, message: string) => void;
}

/** One run of a workflow id: the one the view described. */
interface Run {
  workflowId: string;
  runId: string;
}

/**
 * The failed state of a run stuck on a size cause, after ending it when it has been stuck past the
 * grace; undefined when it is not stuck. The answer is the same whether or not it was ended.
 */
export async function stuckRunState(
  calls: TemporalCalls,
  run: Run,
  policy: StuckRunPolicy,
): Promise<ExecutionState | undefined> {
  const failedAt = await stuckOnSizeSince(calls, run);
  if (failedAt === undefined) return undefined;
  const stuckMs = Date.now() - failedAt;
  if (stuckMs >= policy.graceMs) await end(calls, run, stuckMs, policy);
  return resultTooLargeState();
}

/**
 * Ends the run if it has been stuck on a size cause past the grace (terminated and logged, as a view
 * does); true when it has ended, by this call or before it.
 */
export async function endIfStuck(calls: TemporalCalls, run: Run, policy: StuckRunPolicy): Promise<boolean> {
  const failedAt = await stuckOnSizeSince(calls, run);
  if (failedAt === undefined) return false;
  const stuckMs = Date.now() - failedAt;
  return stuckMs >= policy.graceMs && end(calls, run, stuckMs, policy);
}

/**
 * When the run's workflow task started failing for a size cause (epoch ms), if it still is: the
 * latest workflow task outcome in its history is a failure with such a cause. Retries of a failing
 * task add no event, so that event's time is when the failing began.
 */
async function stuckOnSizeSince(calls: TemporalCalls, run: Run): Promise<number | undefined> {
  const page = await calls.call(() =>
    calls.client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: calls.options.namespace,
      execution: { workflowId: run.workflowId, runId: run.runId },
      maximumPageSize: 20,
    }),
  );
  const latest = (page.history?.events ?? []).find(
    (event) =>
      event.workflowTaskFailedEventAttributes ||
      event.workflowTaskCompletedEventAttributes ||
      event.workflowTaskTimedOutEventAttributes,
  );
  if (!isSizeCause(latest?.workflowTaskFailedEventAttributes?.cause)) return undefined;
  // Without a time (never seen), the failing counts as begun now: the grace still applies.
  return timestampMs(latest?.eventTime) ?? Date.now();
}

/**
 * Terminates the run, and logs it; true when it has ended. A failure to end it does not change the
 * answer (the next view past the grace tries again); one another view or replica ended first is not
 * logged twice.
 */
async function end(
  calls: TemporalCalls,
  run: Run,
  stuckMs: number,
  policy: StuckRunPolicy,
): Promise<boolean> {
  const handle = calls.client.workflow.getHandle(run.workflowId, run.runId);
  // A slot's workflow id is reused run after run: the run id tells which run this was.
  const runName = `${run.workflowId} (run id ${run.runId})`;
  const why =
    `its workflow task has failed for a size cause (result, activity input or memo larger than Temporal ` +
    `accepts) for ${Math.round(stuckMs / 1000)} s, past MCP_STUCK_RUN_GRACE_MS (${policy.graceMs} ms)`;
  try {
    await calls.call(() => handle.terminate(TOO_LARGE_TERMINATION));
  } catch (err) {
    if (isClosedMeanwhile(err)) return true;
    policy.log?.(run, `gateway: could not terminate run ${runName}, ${why}: ${errorText(err)}`);
    return false;
  }
  policy.log?.(run, `gateway: terminated run ${runName}: ${why}`);
  return true;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
