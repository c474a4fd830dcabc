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

/** What this replica knows of one principal's slots, to spread its concurrent starts over them. */
interface Known {
  /** Slots a start on this replica is trying now: another start of the principal passes over them. */
  trying: Set<number>;
  /** Slots last seen held (started here, refused, or so looked at): quick tries pass over them. */
  held: Set<number>;
}

/** One look at a batch of slots: the free ones, and why any could not be looked at. */
interface Look {
  free: number[];
  failures: unknown[];
}

export class RunningTaskSlots {
  /** principal → until when it was found full (this replica's memory only: a refusal is always safe). */
  private readonly fullUntil = new Map<string, number>();
  /**
   * principal → what this replica knows of its slots. A burst of starts spreads over the free
   * slots instead of racing for the same ones; two replicas may still race for one, and Temporal
   * refuses the second start, so the knowledge is a hint and the cap holds without it.
   */
  private readonly known = new Map<string, Known>();
  /** principal and batch → the look at it in progress: concurrent starts share it. */
  private readonly looks = new Map<string, Promise<Look>>();

  constructor(
    private readonly client: Client,
    private readonly options: SlotsOptions,
  ) {}

  /**
   * The slots of `principal` to start in, in order: a few at random, then those a look finds free,
   * LOOK_BATCH described at a time (a look concurrent starts share). A fresh start passes over the
   * slots another start on this replica is trying or that were last seen held; a keyed one starts at
   * `first` and passes over none (its retries meet its run under its request id). The caller tries
   * each until one takes the run (Temporal refuses a held one: WorkflowExecutionAlreadyStartedError)
   * and says so (`took`). When none is left it throws RunningTaskLimitError, or Temporal's error
   * when a look could not be made; once the principal is found full, its next starts are refused
   * for FULL_FOR_MS without a call.
   */
  async *toTry(principal: string, first?: number): AsyncGenerator<Slot> {
    const { limit } = this.options;
    const now = Date.now();
    if ((this.fullUntil.get(principal) ?? 0) > now) throw new RunningTaskLimitError(principal, limit, limit);
    const known = this.knownOf(principal);
    const spread = first === undefined;
    let mine: number | undefined;
    /** Claims `slot` while this start tries it, or says why it is passed over. */
    const claim = (slot: number): 'claimed' | 'trying' | 'held' => {
      this.release(known, mine);
      mine = undefined;
      if (spread && known.trying.has(slot)) return 'trying';
      if (spread && known.held.has(slot)) return 'held';
      mine = slot;
      known.trying.add(slot);
      return 'claimed';
    };
    /** Resumed after a slot was yielded: Temporal refused it, it is held. */
    const refused = () => mine !== undefined && known.held.add(mine);
    try {
      const start = first === undefined ? randomInt(limit) : first % limit;
      const quick = Math.min(QUICK_TRIES, limit);
      for (let i = 0, tried = 0; i < Math.min(limit, QUICK_TRIES * 4) && tried < quick; i++) {
        const slot = (start + i) % limit;
        if (claim(slot) !== 'claimed') continue;
        tried++;
        yield this.slot(principal, slot);
        refused();
      }
      // A slot that could not be looked at counts as held; Temporal not answering is no refusal.
      let failed = false;
      let passedOver = false;
      // Batches of fixed bounds, from the one holding `start`: concurrent starts share their looks.
      const batches = Math.ceil(limit / LOOK_BATCH);
      for (let k = 0; k < batches; k++) {
        const from = ((Math.floor(start / LOOK_BATCH) + k) % batches) * LOOK_BATCH;
        const batch = Array.from({ length: Math.min(LOOK_BATCH, limit - from) }, (_, i) => from + i);
        const look = await this.look(principal, batch);
        const unavailable = look.failures.find(isTemporalUnavailable);
        if (unavailable) throw unavailable;
        failed ||= look.failures.length > 0;
        // Seen held since the look (another start took it) is passed over as held.
        for (const slot of look.free) {
          const claimed = claim(slot);
          passedOver ||= claimed === 'trying';
          if (claimed !== 'claimed') continue;
          yield this.slot(principal, slot);
          refused();
        }
      }
      if (this.fullUntil.size > 10_000) this.fullUntil.clear();
      // Full only when every slot was seen held: a slot another start was trying may stay free.
      if (!failed && !passedOver) this.fullUntil.set(principal, now + FULL_FOR_MS);
      throw new RunningTaskLimitError(principal, limit, limit);
    } finally {
      this.release(known, mine);
    }
  }

  /** A start took `slot` of `principal`'s: it is held now. */
  took(principal: string, slot: number): void {
    this.knownOf(principal).held.add(slot);
  }

  private knownOf(principal: string): Known {
    let known = this.known.get(principal);
    if (!known) {
      if (this.known.size > 10_000) this.known.clear();
      known = { trying: new Set(), held: new Set() };
      this.known.set(principal, known);
    }
    return known;
  }

  private release(known: Known, slot: number | undefined): void {
    if (slot !== undefined) known.trying.delete(slot);
  }

  /**
   * The look at `slots` of `principal`'s, shared by the starts that ask while it is made; what it
   * sees updates the slots known held.
   */
  private look(principal: string, slots: number[]): Promise<Look> {
    const key = `${principal}\u0000${slots[0]}`;
    let look = this.looks.get(key);
    if (!look) {
      const failures: unknown[] = [];
      look = this.freeSlots(principal, slots, failures).then((free) => {
        const known = this.knownOf(principal);
        for (const slot of slots) known.held.add(slot);
        for (const slot of free) known.held.delete(slot);
        return { free, failures };
      });
      this.looks.set(key, look);
      const forget = () => this.looks.delete(key);
      look.then(forget, forget);
    }
    return look;
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
