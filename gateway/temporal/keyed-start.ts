// A start with an idempotency key takes one slot of the running-task cap for its run, however many
// requests start it at once: on one replica they share one take and one start; across replicas
// each takes a slot, the run's memo names the one it was started under, and every other is given
// back before the answer (or, should that fail, by the next full look: slots.ts).
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { isTemporalUnavailable, RunningTaskLimitError } from './errors.ts';
import type { Caller } from './run-memo.ts';
import { isRunSlot, type RunningTaskSlots, type Slot } from './slots.ts';
import type { OwnedRun, RunViews } from './view.ts';

/** Starts the run (conflict policy: use the existing one) under `slot`, named in its memo. */
type StartUnder = (slot: Slot | undefined) => Promise<unknown>;

export class KeyedStarts {
  /** workflow id → the take and start in progress on this replica (a concurrent one joins it). */
  private readonly inFlight = new Map<string, Promise<OwnedRun>>();

  constructor(
    private readonly views: RunViews,
    private readonly slots?: RunningTaskSlots,
  ) {}

  /** Starts the run `workflowId` names, or joins the start of it in progress; the run as started. */
  start(workflowId: string, caller: Caller, startUnder: StartUnder): Promise<OwnedRun> {
    const joined = this.inFlight.get(workflowId);
    if (joined) return joined;
    const started = this.takeAndStart(workflowId, caller, startUnder).finally(() =>
      this.inFlight.delete(workflowId),
    );
    this.inFlight.set(workflowId, started);
    return started;
  }

  private async takeAndStart(workflowId: string, caller: Caller, startUnder: StartUnder): Promise<OwnedRun> {
    const { slots, views } = this;
    let slot: Slot | undefined;
    try {
      slot = await slots?.take(caller.principal, workflowId);
    } catch (err) {
      // At the cap: a start with this key on another replica may have admitted the run meanwhile.
      const run = err instanceof RunningTaskLimitError ? await views.owned(workflowId, caller) : undefined;
      if (run) return run;
      throw err;
    }
    try {
      await startUnder(slot);
    } catch (err) {
      // Already there and closed: that run is answered (and this slot given back, below).
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        // Unconfirmed, the run may hold this slot: it stays held (a full look frees it if not).
        if (slot && !isTemporalUnavailable(err)) slots?.releaseLater(slot);
        throw err;
      }
    }
    const run = await views.owned(workflowId, caller);
    // Left held: a full look frees it once its holder has settled.
    if (!run) throw new Error(`the run ${workflowId} was started but cannot be found`);
    if (slot && slots) {
      // Another start with this key won under a slot of its own: this one is given back now.
      if (isRunSlot(run.memo, slot)) slots.hold(workflowId, slot);
      else await slots.release(slot).catch(() => {});
    }
    return run;
  }
}
