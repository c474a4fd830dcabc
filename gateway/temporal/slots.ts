// The running-task cap, held by Temporal itself: a principal with a cap of N has N slots, each a
// workflow id (`mcp-run-<principal tag>-<i>`: task-ids.ts), and a task under the cap runs under one.
// Temporal never runs two executions of one id at once, so two starts (two requests, two gateway
// replicas) can never take one slot, and no more than N of a principal's runs are running. A run
// that ends frees its slot by ending: nothing else is started or kept for the cap, and a start under
// it is one start when its first slot is free. A run that no longer works does not hold its slot:
// the look at held slots ends one stuck past the grace (too-large.ts), and Temporal times out one past
// its tool's maximum duration (start.ts). Task ids name their slot (task-ids.ts).
import { randomInt } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { isRunNotFound, isTemporalUnavailable, RunningTaskLimitError } from './errors.ts';
import { isRunning, isWorkflowTaskRetrying } from './run-state.ts';
import { slotWorkflowId } from './task-ids.ts';

/** Random slots tried before every slot is looked at. */
const QUICK_TRIES = 6;
/** After a full look found nothing free, further starts of that principal are refused this long. */
const FULL_FOR_MS = 1_000;
/** Slots described at once when looking for free ones (a cap may be 65,536 slots). */
const LOOK_BATCH = 16;

interface SlotsOptions {
  serverSecret: Buffer;
  /** Slots per principal (the cap). */
  limit: number;
  /** Runs every call under the client's deadline (client.ts). */
  calls: { call<T>(fn: () => Promise<T>): Promise<T> };
  /**
   * Ends the run holding a slot if it no longer works (stuck past the grace); true when it has
   * ended, so the slot is free. Asked only of runs whose workflow task keeps failing.
   */
  reclaim?: (run: { workflowId: string; runId: string }) => Promise<boolean>;
}

/** A slot to start the run in: its index and its workflow id (started with conflict policy FAIL). */
export interface Slot {
  slot: number;
  workflowId: string;
}

export class RunningTaskSlots {
  /** principal → until when it was found full (this replica's memory only: a refusal is always safe). */
  private readonly fullUntil = new Map<string, number>();
  /**
   * principal → the slots starts on this replica are trying now: a concurrent start of the same
   * principal passes over them, so a burst spreads over the free slots instead of queuing or
   * racing for one (two replicas may still race: Temporal refuses the second start of a slot).
   */
  private readonly trying = new Map<string, Set<number>>();

  constructor(
    private readonly client: Client,
    private readonly options: SlotsOptions,
  ) {}

  /**
   * The slots of `principal` to start in, in order: a few at random (from `first`, a keyed start's,
   * when given), then those a look finds free, LOOK_BATCH described at a time; none another start
   * on this replica is trying. The caller tries each until one takes the run (Temporal refuses a
   * held one: WorkflowExecutionAlreadyStartedError). When none is left it throws
   * RunningTaskLimitError, or Temporal's error when a look could not be made; once the principal is
   * found full, its next starts are refused for FULL_FOR_MS without a call.
   */
  async *toTry(principal: string, first?: number): AsyncGenerator<Slot> {
    const { limit } = this.options;
    const now = Date.now();
    if ((this.fullUntil.get(principal) ?? 0) > now) throw new RunningTaskLimitError(principal, limit, limit);
    let mine: number | undefined;
    /** Claims `slot` for this start while it is tried; false when another start is trying it. */
    const claim = (slot: number) => {
      this.release(principal, mine);
      const trying = this.trying.get(principal) ?? new Set<number>();
      mine = trying.has(slot) ? undefined : slot;
      if (mine !== undefined) this.trying.set(principal, trying.add(mine));
      return mine !== undefined;
    };
    try {
      const start = first === undefined ? randomInt(limit) : first % limit;
      for (let i = 0; i < Math.min(QUICK_TRIES, limit); i++) {
        const slot = (start + i) % limit;
        if (claim(slot)) yield this.slot(principal, slot);
      }
      // A slot that could not be looked at counts as held; Temporal not answering is no refusal.
      const failures: unknown[] = [];
      let passedOver = false;
      for (let from = 0; from < limit; from += LOOK_BATCH) {
        const batch = Array.from(
          { length: Math.min(LOOK_BATCH, limit - from) },
          (_, i) => (start + from + i) % limit,
        );
        for (const slot of await this.freeSlots(principal, batch, failures)) {
          if (claim(slot)) yield this.slot(principal, slot);
          else passedOver = true;
        }
        const unavailable = failures.find(isTemporalUnavailable);
        if (unavailable) throw unavailable;
      }
      if (this.fullUntil.size > 10_000) this.fullUntil.clear();
      // Full only when every slot was seen held: a slot another start was trying may stay free.
      if (failures.length === 0 && !passedOver) this.fullUntil.set(principal, now + FULL_FOR_MS);
      throw new RunningTaskLimitError(principal, limit, limit);
    } finally {
      this.release(principal, mine);
    }
  }

  /** Another start of `principal` may try `slot` now. */
  private release(principal: string, slot: number | undefined): void {
    const trying = this.trying.get(principal);
    if (slot === undefined || !trying) return;
    trying.delete(slot);
    if (trying.size === 0) this.trying.delete(principal);
  }

  private slot(principal: string, slot: number): Slot {
    return { slot, workflowId: slotWorkflowId(this.options.serverSecret, principal, slot) };
  }

  /**
   * Of `slots`, those with no working run now (one describe each, all at once): no run, a closed
   * one, or one `reclaim` ended. Why a slot could not be looked at goes to `failures`.
   */
  private async freeSlots(principal: string, slots: number[], failures: unknown[]): Promise<number[]> {
    const looks = await Promise.all(
      slots.map(async (slot) => {
        const handle = this.client.workflow.getHandle(this.slot(principal, slot).workflowId);
        try {
          const description = await this.options.calls.call(() => handle.describe());
          if (!isRunning(description)) return slot;
          const { workflowId, runId } = description;
          const failing = isWorkflowTaskRetrying(description);
          return failing && (await this.options.reclaim?.({ workflowId, runId })) ? slot : undefined;
        } catch (err) {
          if (isRunNotFound(err)) return slot;
          failures.push(err);
          return undefined;
        }
      }),
    );
    return looks.filter((slot): slot is number => slot !== undefined);
  }
}
