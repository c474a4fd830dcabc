// What a caller may do to its own run: request its cancellation, or send it input on the tool's
// input signal (answered once the run has taken it, so what the caller reads next reflects it). An
// id that is not the caller's is not found, with no Temporal call.
import type { InputResponses } from '../../workflows/mcp-contract.ts';
import type { Caller } from '../shared/caller.ts';
import type { TemporalCalls } from './client.ts';
import { isClosedMeanwhile } from './errors.ts';
import { RunHistoryFeed, untilSignalTaken } from './run-changes.ts';
import { isRunning, type RunRef } from './run-state.ts';
import type { TaskName } from './task-ids.ts';
import type { ProgressSource, RunViews } from './view.ts';

/**
 * Input for a run: on which signal, and (where its progress can be read) only what it asks now:
 * only answers to requests outstanding now are signalled.
 */
export interface InputDelivery extends ProgressSource {
  signalName: string;
  responses: InputResponses;
}

export class RunActions {
  constructor(
    private readonly calls: TemporalCalls,
    private readonly views: RunViews,
  ) {}

  /**
   * Requests cancellation; the run, or undefined when there is no such run for this caller (of the
   * tool with `idPrefix`, when given). No-op once closed.
   */
  async cancel(task: TaskName, caller: Caller, idPrefix?: string): Promise<RunRef | undefined> {
    if (!this.views.owns(task, caller, idPrefix)) return undefined;
    const found = await this.views.owned(task, caller);
    if (!found) return undefined;
    if (!isRunning(found.description)) return found.run;
    try {
      await this.calls.call(() => found.handle.cancel());
    } catch (err) {
      if (!isClosedMeanwhile(err)) throw err;
    }
    return found.run;
  }

  /**
   * Sends input responses on the tool's input signal and waits (at most the call deadline) until
   * the run has taken them; the run, or undefined when there is no such run for this caller.
   */
  async sendInput(task: TaskName, caller: Caller, input: InputDelivery): Promise<RunRef | undefined> {
    if (!this.views.owns(task, caller)) return undefined;
    const asked = this.views.queryWithDescribe(task, caller, input);
    const found = await this.views.owned(task, caller);
    if (!found) return undefined;
    if (!isRunning(found.description)) return found.run;
    let due = input.responses;
    const answer = await this.views.progressNow(found, input, asked);
    // Keys the run does not ask for now (never asked, or answered before) never reach its history;
    // when its progress cannot be read (no worker answers the query) the answers go as they are.
    if (answer && 'progress' in answer) {
      const outstanding = answer.progress.inputRequests ?? {};
      due = Object.fromEntries(Object.entries(due).filter(([key]) => Object.hasOwn(outstanding, key)));
      if (Object.keys(due).length === 0) return found.run;
    }
    try {
      await this.calls.call(() => found.handle.signal(input.signalName, due));
    } catch (err) {
      if (!isClosedMeanwhile(err)) throw err;
      return found.run;
    }
    await this.taken(found.run, input.signalName, found.description.historyLength);
    return found.run;
  }

  /**
   * Until a workflow task has completed after the signal (its history long poll, no timer): a read
   * right after the answer would otherwise show the run before it, still asking the answered keys.
   * Past the call deadline (no worker takes the run), or when Temporal fails, the answer stands as
   * sent and the caller reads the run as it is.
   */
  private async taken(run: RunRef, signalName: string, historyLength: number): Promise<void> {
    const feed = new RunHistoryFeed(this.calls, run, AbortSignal.timeout(this.calls.options.callTimeoutMs));
    await untilSignalTaken(feed, signalName, historyLength).catch(() => {});
  }
}
