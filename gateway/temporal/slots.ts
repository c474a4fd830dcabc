// The running-task cap, held by Temporal itself: a principal with a cap of N has N slots, each a
// workflow id (`mcp-slot-<principal tag>-<i>`). Taking a slot is starting a small "holder" run
// under that id; Temporal never runs two executions of one id at once, so two starts (two
// requests, two gateway replicas) can never take one slot, and no more than N runs are admitted.
// No worker ever serves the holders (their task queue has no poller): a holder is a durable record
// naming the run it admits, ended (terminated, by its own run id) when that run is seen to end.
// Slots of runs that ended unseen are found when a principal looks full: every holder's run is
// described (a strongly consistent read), and the ended ones' slots are freed and taken. A run's
// memo names the slot it was started under: concurrent starts with one idempotency key each take
// a slot, and every holder of that run but the one it names is given back.
import { createHmac, randomInt } from 'node:crypto';
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { isClosedMeanwhile, isRunNotFound, isTemporalUnavailable, RunningTaskLimitError } from './errors.ts';

/** The task queue of the holders: nothing polls it, so a holder never runs, it only exists. */
const SLOT_TASK_QUEUE = 'mcp-running-task-slots';
/** The holders' workflow type (never executed). */
export const SLOT_WORKFLOW_TYPE = 'McpRunningTaskSlot';
/** Every slot's workflow id starts so. */
const SLOT_ID_PREFIX = 'mcp-slot-';

/** Whether a workflow id is a slot's (its holder's), not a task's. */
export function isSlotId(workflowId: string | undefined): boolean {
  return workflowId?.startsWith(SLOT_ID_PREFIX) ?? false;
}

/** Random slots tried before every slot is looked at. */
const QUICK_TRIES = 6;
/** How old a holder must be before a run it names that cannot be found counts as ended. */
const SETTLE_MS = 60_000;
/** After a full look found nothing free, further starts of that principal are refused this long. */
const FULL_FOR_MS = 1_000;

/** A slot taken: which one, and the holder's execution (ended by its run id, never a newer one). */
export interface Slot {
  workflowId: string;
  runId: string;
}

/** The run's memo key naming the slot (holder) it was started under. */
export const RUN_SLOT_MEMO = 'slot';

/** Whether a run's memo names `slot` as the one it was started under. */
export function isRunSlot(memo: unknown, slot: Slot): boolean {
  const named = (memo as Record<string, Partial<Slot> | undefined> | undefined)?.[RUN_SLOT_MEMO];
  return named?.workflowId === slot.workflowId && named.runId === slot.runId;
}

interface SlotsOptions {
  serverSecret: Buffer;
  /** Slots per principal (the cap). */
  limit: number;
  /** Runs every call under the client's deadline (client.ts). */
  calls: { call<T>(fn: () => Promise<T>): Promise<T> };
  now?: () => number;
}

export class RunningTaskSlots {
  /** principal → until when it was found full (this replica's memory only: a refusal is always safe). */
  private readonly fullUntil = new Map<string, number>();
  /** principal → the take in progress on this replica (the next one waits for it). */
  private readonly queues = new Map<string, Promise<Slot>>();
  /** Slots of runs this gateway started and is waiting on: freed the moment the wait sees the end. */
  private readonly held = new Map<string, Slot>();

  constructor(
    private readonly client: Client,
    private readonly options: SlotsOptions,
  ) {}

  /**
   * Takes a slot of `principal` for the run `workflowId` names, about to start, or throws
   * RunningTaskLimitError. One take per principal at a time on this replica (a burst queues here
   * instead of racing for the same slots on Temporal; once the principal is found full, the rest of
   * the burst is refused without a call). Replicas race on Temporal, which lets one win each slot.
   */
  take(principal: string, workflowId: string): Promise<Slot> {
    const previous = this.queues.get(principal) ?? Promise.resolve();
    const next = previous.then(
      () => this.takeNow(principal, workflowId),
      () => this.takeNow(principal, workflowId),
    );
    this.queues.set(principal, next);
    const settle = () => {
      if (this.queues.get(principal) === next) this.queues.delete(principal);
    };
    next.then(settle, settle);
    return next;
  }

  private async takeNow(principal: string, workflowId: string): Promise<Slot> {
    const { limit } = this.options;
    const now = (this.options.now ?? Date.now)();
    if ((this.fullUntil.get(principal) ?? 0) > now) throw new RunningTaskLimitError(principal, limit, limit);
    const first = randomInt(limit);
    for (let i = 0; i < Math.min(QUICK_TRIES, limit); i++) {
      const taken = await this.tryTake(principal, (first + i) % limit, workflowId);
      if (taken) return taken;
    }
    // Looks full: free the slots of runs that have ended, then take one of them.
    const { free, failures } = await this.freeEnded(principal);
    for (const index of free) {
      const taken = await this.tryTake(principal, index, workflowId);
      if (taken) return taken;
    }
    // A slot that could not be looked at counts as taken; Temporal not answering is no refusal.
    const unavailable = failures.find(isTemporalUnavailable);
    if (unavailable) throw unavailable;
    if (this.fullUntil.size > 10_000) this.fullUntil.clear();
    // Remembered as full only when every slot was seen held.
    if (failures.length === 0) this.fullUntil.set(principal, now + FULL_FOR_MS);
    throw new RunningTaskLimitError(principal, limit, limit);
  }

  /** How many slots this gateway keeps for runs it is waiting on. */
  get holding(): number {
    return this.held.size;
  }

  /** Keeps the slot of a run this gateway started, to free it when a wait sees the run end. */
  hold(workflowId: string, slot: Slot): void {
    this.held.set(workflowId, slot);
  }

  /** A wait on the run ended: its slot is freed when the run `closed`, and forgotten either way. */
  waitEnded(workflowId: string, closed: boolean): void {
    const slot = this.held.get(workflowId);
    if (slot && closed) this.releaseLater(slot);
    this.held.delete(workflowId);
  }

  /** Frees a slot in the background: the answer never waits for it (a full look frees it otherwise). */
  releaseLater(slot: Slot): void {
    this.release(slot).catch(() => {});
  }

  /** Ends a slot's holder (a no-op once ended). */
  async release(slot: Slot): Promise<void> {
    try {
      await this.options.calls.call(() =>
        this.client.workflow
          .getHandle(slot.workflowId, slot.runId)
          .terminate('the run it admitted has ended'),
      );
    } catch (err) {
      if (!isClosedMeanwhile(err) && !isRunNotFound(err)) throw err;
    }
  }

  private slotId(principal: string, index: number): string {
    const tag = createHmac('sha256', this.options.serverSecret)
      .update(`running-task-slot:${principal}`)
      .digest('base64url')
      .slice(0, 22);
    return `${SLOT_ID_PREFIX}${tag}-${index}`;
  }

  /** Starts the holder of slot `index`; undefined when the slot is held. */
  private async tryTake(principal: string, index: number, taskId: string): Promise<Slot | undefined> {
    const workflowId = this.slotId(principal, index);
    try {
      const handle = await this.options.calls.call(() =>
        this.client.workflow.start(SLOT_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: SLOT_TASK_QUEUE,
          args: [],
          memo: { run: taskId, principal },
          staticSummary: `Running-task slot ${index + 1} of ${this.options.limit}: ${taskId}`.slice(0, 200),
          workflowIdConflictPolicy: 'FAIL',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        }),
      );
      return { workflowId, runId: handle.firstExecutionRunId };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return undefined;
      throw err;
    }
  }

  /**
   * Slot indexes that are free now, or were held for runs that have ended (those holders ended), and
   * why the slots that could not be looked at could not (those count as taken).
   */
  private async freeEnded(principal: string): Promise<{ free: number[]; failures: unknown[] }> {
    const failures: unknown[] = [];
    const looks = await Promise.all(
      Array.from({ length: this.options.limit }, (_, index) =>
        this.isFree(this.slotId(principal, index)).then(
          (free) => (free ? index : undefined),
          (err: unknown) => {
            failures.push(err);
            return undefined;
          },
        ),
      ),
    );
    return { free: looks.filter((index): index is number => index !== undefined), failures };
  }

  /** Whether slot `workflowId` is free, or held for a run that has ended (its holder then ended). */
  private async isFree(workflowId: string): Promise<boolean> {
    const holder = this.client.workflow.getHandle(workflowId);
    let description: WorkflowExecutionDescription;
    try {
      description = await this.options.calls.call(() => holder.describe());
    } catch (err) {
      if (isRunNotFound(err)) return true;
      throw err;
    }
    if (description.status.name !== 'RUNNING') return true;
    const run = (description.memo as { run?: unknown } | undefined)?.run;
    // A holder just taken may name a run whose start is still on its way: not yet "ended".
    const settled = (this.options.now ?? Date.now)() - description.startTime.getTime() > SETTLE_MS;
    const slot = { workflowId, runId: description.runId };
    if (typeof run !== 'string' || !(await this.admitsNoRun(slot, run, settled))) return false;
    await this.release(slot);
    return true;
  }

  /**
   * Whether the holder `slot` admits no running run: the run has ended, or runs under another slot
   * (a concurrent start with its idempotency key won); a run not found has ended only once its
   * holder is `settled`.
   */
  private async admitsNoRun(slot: Slot, taskId: string, settled: boolean): Promise<boolean> {
    let run: WorkflowExecutionDescription;
    try {
      run = await this.options.calls.call(() => this.client.workflow.getHandle(taskId).describe());
    } catch (err) {
      // Never started (its start failed), or gone past its retention.
      if (isRunNotFound(err)) return settled;
      throw err;
    }
    if (run.status.name !== 'RUNNING') return true;
    // A run started before runs named their slot keeps every holder naming it.
    const named = (run.memo as Record<string, unknown> | undefined)?.[RUN_SLOT_MEMO] !== undefined;
    return named && !isRunSlot(run.memo, slot);
  }
}
