// The running-task cap, held by Temporal itself: a principal with a cap of N has N slots, each a
// workflow id (`mcp-run-<principal tag>-<i>`: task-ids.ts), and a task under the cap runs under one.
// Temporal never runs two executions of one id at once, so two starts (two requests, two gateway
// replicas) can never take one slot, and no more than N of a principal's runs are running. A run
// that ends frees its slot by ending: nothing else is started or kept for the cap, and a start under
// it is one start when its first slot is free. A run that no longer works does not hold its slot:
// the look at held slots ends one stuck past the grace (too-large.ts), and Temporal times out one past
// its tool's maximum duration (start.ts). Task ids name their slot (task-ids.ts).
import { randomInt } from 'node:crypto';
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
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

/** Starts the run in slot `slot` (under `workflowId`, conflict policy FAIL); rejects with WorkflowExecutionAlreadyStartedError when it is held. */
export type StartIn<T> = (slot: number, workflowId: string) => Promise<T>;

export class RunningTaskSlots {
  /** principal → until when it was found full (this replica's memory only: a refusal is always safe). */
  private readonly fullUntil = new Map<string, number>();
  /** principal → the start in progress on this replica (the next one waits for it). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly client: Client,
    private readonly options: SlotsOptions,
  ) {}

  /**
   * Starts a run of `principal` in a free slot, or throws RunningTaskLimitError: a few slots at
   * random, then (when those are held) the slots are looked at, LOOK_BATCH at a time, and the free
   * ones tried, until one is taken. One start
   * per principal at a time on this replica: a burst queues here instead of racing for the same
   * slots on Temporal, and once the principal is found full the rest of it is refused without a
   * call. Replicas race on Temporal, which lets one win each slot. `first`: where the tries begin
   * (a keyed start's, drawn from its key), else at random.
   */
  start<T>(principal: string, startIn: StartIn<T>, first?: number): Promise<T> {
    const previous = this.queues.get(principal) ?? Promise.resolve();
    const next = previous.then(
      () => this.startNow(principal, startIn, first),
      () => this.startNow(principal, startIn, first),
    );
    this.queues.set(principal, next);
    const settle = () => {
      if (this.queues.get(principal) === next) this.queues.delete(principal);
    };
    next.then(settle, settle);
    return next;
  }

  private async startNow<T>(principal: string, startIn: StartIn<T>, from?: number): Promise<T> {
    const { limit } = this.options;
    const now = Date.now();
    if ((this.fullUntil.get(principal) ?? 0) > now) throw new RunningTaskLimitError(principal, limit, limit);
    const first = from === undefined ? randomInt(limit) : from % limit;
    for (let i = 0; i < Math.min(QUICK_TRIES, limit); i++) {
      const started = await this.attempt(principal, (first + i) % limit, startIn);
      if (started) return started.run;
    }
    // A slot that could not be looked at counts as held; Temporal not answering is no refusal.
    const failures: unknown[] = [];
    for (let from = 0; from < limit; from += LOOK_BATCH) {
      const batch = Array.from(
        { length: Math.min(LOOK_BATCH, limit - from) },
        (_, i) => (first + from + i) % limit,
      );
      const free = await this.freeSlots(principal, batch, failures);
      for (const slot of free) {
        const started = await this.attempt(principal, slot, startIn);
        if (started) return started.run;
      }
      const unavailable = failures.find(isTemporalUnavailable);
      if (unavailable) throw unavailable;
    }
    if (this.fullUntil.size > 10_000) this.fullUntil.clear();
    if (failures.length === 0) this.fullUntil.set(principal, now + FULL_FOR_MS);
    throw new RunningTaskLimitError(principal, limit, limit);
  }

  private workflowId(principal: string, slot: number): string {
    return slotWorkflowId(this.options.serverSecret, principal, slot);
  }

  /** Starts in `slot`; undefined when it is held. */
  private async attempt<T>(
    principal: string,
    slot: number,
    startIn: StartIn<T>,
  ): Promise<{ run: T } | undefined> {
    try {
      return { run: await startIn(slot, this.workflowId(principal, slot)) };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return undefined;
      throw err;
    }
  }

  /**
   * Of `slots`, those with no working run now (one describe each, all at once): no run, a closed
   * one, or one `reclaim` ended. Why a slot could not be looked at goes to `failures`.
   */
  private async freeSlots(principal: string, slots: number[], failures: unknown[]): Promise<number[]> {
    const looks = await Promise.all(
      slots.map(async (slot) => {
        const handle = this.client.workflow.getHandle(this.workflowId(principal, slot));
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
