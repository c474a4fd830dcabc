// The running-task cap, held by Temporal itself: a principal with a cap of N has N slots, each a
// workflow id (`mcp-run-<principal tag>-<i>`: task-ids.ts), and a task under the cap runs under one.
// Temporal never runs two executions of one id at once, so two starts (two requests, two gateway
// replicas) can never take one slot, and no more than N of a principal's runs are running. A run
// that ends frees its slot by ending: nothing else is started, kept or ended for the cap, and a
// start under it is one start when its first slot is free. Task ids name their slot (task-ids.ts).
import { randomInt } from 'node:crypto';
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { isRunNotFound, isTemporalUnavailable, RunningTaskLimitError } from './errors.ts';
import { slotWorkflowId } from './task-ids.ts';

/** Random slots tried before every slot is looked at. */
const QUICK_TRIES = 6;
/** After a full look found nothing free, further starts of that principal are refused this long. */
const FULL_FOR_MS = 1_000;

interface SlotsOptions {
  serverSecret: Buffer;
  /** Slots per principal (the cap). */
  limit: number;
  /** Runs every call under the client's deadline (client.ts). */
  calls: { call<T>(fn: () => Promise<T>): Promise<T> };
  now?: () => number;
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
   * random, then (when those are held) every slot is looked at and the free ones tried. One start
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
    const now = (this.options.now ?? Date.now)();
    if ((this.fullUntil.get(principal) ?? 0) > now) throw new RunningTaskLimitError(principal, limit, limit);
    const first = from === undefined ? randomInt(limit) : from % limit;
    for (let i = 0; i < Math.min(QUICK_TRIES, limit); i++) {
      const started = await this.attempt(principal, (first + i) % limit, startIn);
      if (started) return started.run;
    }
    const { free, failures } = await this.freeSlots(principal);
    for (const slot of free) {
      const started = await this.attempt(principal, slot, startIn);
      if (started) return started.run;
    }
    // A slot that could not be looked at counts as held; Temporal not answering is no refusal.
    const unavailable = failures.find(isTemporalUnavailable);
    if (unavailable) throw unavailable;
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

  /** The slots with no running run now (one describe each), and why those not looked at were not. */
  private async freeSlots(principal: string): Promise<{ free: number[]; failures: unknown[] }> {
    const failures: unknown[] = [];
    const looks = await Promise.all(
      Array.from({ length: this.options.limit }, async (_, slot) => {
        const handle = this.client.workflow.getHandle(this.workflowId(principal, slot));
        try {
          const { status } = await this.options.calls.call(() => handle.describe());
          return status.name === 'RUNNING' ? undefined : slot;
        } catch (err) {
          if (isRunNotFound(err)) return slot;
          failures.push(err);
          return undefined;
        }
      }),
    );
    return { free: looks.filter((slot): slot is number => slot !== undefined), failures };
  }
}
