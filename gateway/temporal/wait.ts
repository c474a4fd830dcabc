// Waiting on a run: for its result, the one long poll that returns the moment it closes (no timer),
// used by a call's bounded wait and by a view of a closed run; for its changes too, the long poll on
// its history (run-changes.ts) that also tells its close, used by every wait that looks at the run
// while it runs (input rounds, pushed status, 2025-11-25 result streams).
import type { Client } from '@temporalio/client';
import { type WaitOutcome, waitSeconds } from '../shared/metrics.ts';
import { annotateSpan, inSpan, tracing } from '../shared/tracing.ts';
import { type TemporalCalls, timed } from './client.ts';
import { WaitCounts } from './principal-limits.ts';
import { RunHistoryFeed, untilAborted } from './run-changes.ts';
import { completedState, type ExecutionState, type RunRef, stateFromResultError } from './run-state.ts';

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

/** How a bounded wait ended: the run closed (with its state), or it is still running. */
export type WaitResult = { kind: 'closed'; state: ExecutionState } | { kind: 'running' };

/** The abort reason of the gateway's stopping signal, so a wait it cuts short is counted as such. */
export const SHUTDOWN = 'shutdown';

/** What a bounded wait watches besides its budget. */
export interface WaitSignals {
  /** The caller left. */
  callerLeft?: AbortSignal;
  /** The run asks for input, or the gateway stops (its reason is SHUTDOWN). */
  interrupt?: AbortSignal;
  /**
   * Looks at the run: once at the start, then after each change of its history while it runs (the
   * wait then follows the history, whose long poll also tells the close). Must not reject.
   */
  onChange?: () => Promise<void>;
}

export class RunWaits {
  constructor(
    private readonly calls: TemporalCalls,
    private readonly counts = new WaitCounts(0),
  ) {}

  /**
   * Runs `work` holding one of `principal`'s concurrent waits; throws WaitLimitError at the bound
   * (principal-limits.ts) before `work` starts. Every wait of a request counts: a call's budget, the
   * settle after input (tasks/update, an answer, a round) or after a 2025-11-25 tasks/cancel.
   */
  async holding<T>(principal: string, work: () => Promise<T>): Promise<T> {
    const release = this.counts.reserve(principal);
    try {
      return await work();
    } finally {
      release();
    }
  }

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
    if (budgetMs <= 0 || signals.callerLeft?.aborted || signals.interrupt?.aborted)
      return Promise.resolve({ kind: 'running' });
    if (!tracing) return this.bounded(run, budgetMs, signals);
    const taskId = run.taskId ?? run.workflowId;
    return inSpan('wait budget', { 'mcp.task.id': taskId, 'mcp.wait.budget_ms': budgetMs }, () =>
      this.bounded(run, budgetMs, signals),
    );
  }

  private async bounded(run: RunRef, budgetMs: number, { callerLeft, interrupt, onChange }: WaitSignals) {
    const end = waitSeconds.startTimer();
    // How the wait ended: on the wait histogram, and on the wait's span.
    const ended = (how: WaitOutcome) => {
      end({ outcome: how });
      if (tracing) annotateSpan({ 'mcp.wait.end': how });
    };
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(new Error('wait budget spent')), budgetMs);
    const onEnd = () => budget.abort(new Error('wait ended'));
    callerLeft?.addEventListener('abort', onEnd, { once: true });
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
      ended(callerLeft?.aborted ? 'caller_gone' : interrupt?.aborted ? why : 'budget_spent');
      return { kind: 'running' } as const;
    } finally {
      clearTimeout(timer);
      callerLeft?.removeEventListener('abort', onEnd);
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
