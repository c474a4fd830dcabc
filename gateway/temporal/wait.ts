// Waiting on a run: for its result, the one long poll that returns the moment it closes (no timer),
// used by a call's bounded wait and by a view of a closed run; for its changes too, the long poll on
// its history (run-changes.ts) that also tells its close, used by every wait that looks at the run
// while it runs (input rounds, pushed status, 2025-11-25 result streams).
import { type Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { TOOL_ERROR_TYPE } from '../../workflows/mcp-contract.ts';
import { type WaitOutcome, waitSeconds } from '../shared/metrics.ts';
import { annotateSpan, inSpan, tracing } from '../shared/tracing.ts';
import { type TemporalCalls, timed } from './client.ts';
import { RunHistoryFeed, untilAborted } from './run-changes.ts';
import {
  type ExecutionState,
  RESULT_TOO_LARGE,
  RESULT_TOO_LARGE_MESSAGE,
  type RunRef,
  TOO_LARGE_TERMINATION,
} from './run-state.ts';

/**
 * The run's outcome once it has closed: its result, or the failure its result throws. Rejects when
 * `signal` aborts first, or Temporal fails (or does not answer).
 */
export async function outcomeOf(client: Client, run: RunRef, signal?: AbortSignal): Promise<ExecutionState> {
  const handle = client.workflow.getHandle(run.workflowId, run.runId);
  const poll = () => timed('result-wait', () => handle.result(), signal);
  try {
    return completedState(await (signal ? client.withAbortSignal(signal, poll) : poll()));
  } catch (err) {
    const state = stateFromResultError(err);
    if (state) return state;
    throw err;
  }
}

// ---- what a closed run's outcome says ------------------------------------------------------------

function completedState(result: unknown): ExecutionState {
  return { status: 'completed', result: result === undefined ? null : result };
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
    if (terminatedForSize(first.message)) return failed(false, RESULT_TOO_LARGE, RESULT_TOO_LARGE_MESSAGE);
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

// ---- waiting ----------------------------------------------------------------------------------------

/** How a bounded wait ended: the run closed (with its state), or it is still running. */
export type WaitResult = { kind: 'closed'; state: ExecutionState } | { kind: 'running' };

/** The abort reason of the gateway's stopping signal, so a wait it cuts short is counted as such. */
export const SHUTDOWN = 'shutdown';

/** What a bounded wait watches besides its budget. */
export interface WaitSignals {
  /** The caller left. */
  gone?: AbortSignal;
  /** The run asks for input, or the gateway stops (its reason is SHUTDOWN). */
  interrupt?: AbortSignal;
  /**
   * Looks at the run: once at the start, then after each change of its history while it runs (the
   * wait then follows the history, whose long poll also tells the close). Must not reject.
   */
  onChange?: () => Promise<void>;
}

export class RunWaits {
  constructor(private readonly calls: TemporalCalls) {}

  /** The run's history followed from now (run-changes.ts), until `signal` aborts. */
  changes(run: RunRef, signal: AbortSignal): RunHistoryFeed {
    return new RunHistoryFeed(this.calls, run, signal);
  }

  /**
   * A closed run's outcome (it answers at once), under the call deadline (a deleted run's may never
   * come); rejects when `signal` aborts first.
   */
  outcome(run: RunRef, signal: AbortSignal): Promise<ExecutionState> {
    return untilAborted(
      this.calls.call(() => outcomeOf(this.calls.client, run, signal)),
      signal,
    );
  }

  /**
   * Waits for the run to close, at most `budgetMs`, or until a signal aborts: resolves the moment it
   * closes, or with `running` when the wait ends first. Leaves no wait behind; every wait is timed
   * into the wait histogram with how it ended.
   */
  forResult(run: RunRef, budgetMs: number, signals: WaitSignals = {}): Promise<WaitResult> {
    if (budgetMs <= 0 || signals.gone?.aborted || signals.interrupt?.aborted)
      return Promise.resolve({ kind: 'running' });
    if (!tracing) return this.bounded(run, budgetMs, signals);
    const taskId = run.taskId ?? run.workflowId;
    return inSpan('wait budget', { 'mcp.task.id': taskId, 'mcp.wait.budget_ms': budgetMs }, () =>
      this.bounded(run, budgetMs, signals),
    );
  }

  private async bounded(run: RunRef, budgetMs: number, { gone, interrupt, onChange }: WaitSignals) {
    const end = waitSeconds.startTimer();
    // How the wait ended: on the wait histogram, and on the wait's span.
    const ended = (how: WaitOutcome) => {
      end({ outcome: how });
      if (tracing) annotateSpan({ 'mcp.wait.end': how });
    };
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(new Error('wait budget spent')), budgetMs);
    const onEnd = () => budget.abort(new Error('wait ended'));
    gone?.addEventListener('abort', onEnd, { once: true });
    interrupt?.addEventListener('abort', onEnd, { once: true });
    try {
      // Raced with the budget itself: a long poll whose connection Temporal dropped may not heed
      // its abort, and the call must answer when its budget ends all the same.
      const closing = onChange
        ? this.followed(run, budget.signal, onChange)
        : outcomeOf(this.calls.client, run, budget.signal);
      const state = await untilAborted(closing, budget.signal);
      ended('closed');
      return { kind: 'closed', state } as const;
    } catch (err) {
      if (!budget.signal.aborted) {
        ended('error');
        throw err;
      }
      const why = interrupt?.reason === SHUTDOWN ? 'shutdown' : 'input_required';
      ended(gone?.aborted ? 'caller_gone' : interrupt?.aborted ? why : 'budget_spent');
      return { kind: 'running' } as const;
    } finally {
      clearTimeout(timer);
      gone?.removeEventListener('abort', onEnd);
      interrupt?.removeEventListener('abort', onEnd);
    }
  }

  /** The run's outcome once it closes, looking at it after each change of its history before that. */
  private async followed(run: RunRef, signal: AbortSignal, onChange: () => Promise<void>) {
    const changes = this.changes(run, signal);
    while ((await changes.next()) === 'changed') await onChange();
    return outcomeOf(this.calls.client, run, signal);
  }
}
