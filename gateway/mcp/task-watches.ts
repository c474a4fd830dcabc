// One Temporal watch per task per gateway, fanned out to every stream that holds it: a long poll on
// the run's history (run-changes.ts), a look at the task after each change it reports (status,
// status line, outstanding input), and the outcome the moment the run closes. The watch starts with
// its first subscriber and stops when the task ends or its last subscriber leaves.

import type { Caller } from '../shared/caller.ts';
import { countOpen, taskWatches } from '../shared/metrics.ts';
import { recordPush, tracing } from '../shared/tracing.ts';
import type { RunParts } from '../temporal/backend.ts';
import type { RunChange, RunHistoryFeed } from '../temporal/run-changes.ts';
import type { ExecutionView } from '../temporal/run-state.ts';
import type { TaskName } from '../temporal/task-ids.ts';
import type { Catalog } from './catalog.ts';
import type { TaskTiming } from './poll-pacing.ts';
import { type DetailedTask, detailedTask } from './task-shapes.ts';

const terminal = (task: DetailedTask) =>
  task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';

/** What a client would notice: status, status line, outstanding input keys. */
const changeKey = (task: DetailedTask) =>
  JSON.stringify([
    task.status,
    task.statusMessage,
    task.status === 'input_required' ? Object.keys(task.inputRequests).sort() : [],
  ]);

/** Told each change a client would notice: the task as the extension shows it, and the view behind it. */
export type Push = (task: DetailedTask, view: ExecutionView) => void;

/**
 * How often a watch looks again at a run whose activity heartbeats while its history stays still: a
 * heartbeat adds no history event, yet a status line may show it (the mining one counts the hashes
 * tried). With the long poll's own request (one per server long-poll interval, about 20 s), a
 * watched task then costs Temporal at most one request per 10 s; a run waiting for a person has no
 * activity in flight and costs only the long poll.
 */
const HEARTBEAT_LOOK_MS = 20_000;

/** A run's history followed by a watch: whether it has been read yet, and the change it awaits. */
interface Following {
  feed: RunHistoryFeed;
  answered: boolean;
  pending?: Promise<RunChange | undefined>;
}

/**
 * After a failed look: the pause before the next, doubling from the first up to RETRY_MS (a run
 * being deleted fails a look or two; an unreachable Temporal fails them all).
 */
const FIRST_RETRY_MS = 500;
/** After a failed call (Temporal unreachable): the longest pause before the watch tries again. */
const RETRY_MS = 10_000;

/** One task watched on Temporal for every stream that holds it. */
interface Watch {
  subscribers: Set<Push>;
  stop: AbortController;
  ended: Promise<void>;
}

export interface TaskWatchesDeps extends Pick<RunParts, 'views' | 'waits'> {
  catalog: Catalog;
  timing: TaskTiming;
}

export class TaskWatches {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly deps: TaskWatchesDeps) {}

  /** The caller's task as it is now (with its progress, unless `withProgress` is false). */
  view(task: TaskName, caller: Caller, withProgress = true): Promise<ExecutionView | undefined> {
    const source = withProgress ? (this.deps.catalog.toolOfTask(task)?.progress ?? {}) : {};
    return this.deps.views.read(task, caller, source);
  }

  task(view: ExecutionView): DetailedTask {
    return detailedTask(view, this.deps.catalog.toolOfRun(view.tool), this.deps.timing);
  }

  /**
   * Pushes one task to one stream until it ends or `signal` aborts: its state now, then every
   * change the task's shared watch sees.
   */
  subscribe(first: ExecutionView, caller: Caller, push: Push, signal: AbortSignal): Promise<void> {
    const firstTask = this.task(first);
    push(firstTask, first);
    if (terminal(firstTask) || signal.aborted) return Promise.resolve();
    const shared = this.watchOf(first, caller);
    shared.subscribers.add(push);
    return new Promise<void>((resolve) => {
      const leave = () => {
        shared.subscribers.delete(push);
        if (shared.subscribers.size === 0) shared.stop.abort();
        resolve();
      };
      signal.addEventListener('abort', leave, { once: true });
      shared.ended.then(() => {
        signal.removeEventListener('abort', leave);
        shared.subscribers.delete(push);
        resolve();
      });
    });
  }

  /** The task's watch; a watch its last subscriber just left is ending, so a new one is made. */
  private watchOf(first: ExecutionView, caller: Caller): Watch {
    const open = this.watches.get(first.taskId);
    if (open && !open.stop.signal.aborted) return open;
    const created: Watch = { subscribers: new Set(), stop: new AbortController(), ended: Promise.resolve() };
    created.ended = this.watch(first, caller, created).finally(() => {
      if (this.watches.get(first.taskId) === created) this.watches.delete(first.taskId);
    });
    this.watches.set(first.taskId, created);
    return created;
  }

  /**
   * The run's next change, or `look` once a run whose activity heartbeats has stayed still for
   * HEARTBEAT_LOOK_MS (the change still awaited is kept for the next call); undefined when the long
   * poll failed (the run may be gone: the watch looks at once) or the watch stops.
   */
  private async nextChange(
    changes: Following,
    last: ExecutionView,
    signal: AbortSignal,
  ): Promise<RunChange | 'look' | undefined> {
    changes.pending ??= changes.feed.next().then(
      (change) => {
        changes.answered = true;
        return change;
      },
      () => undefined,
    );
    const heartbeats = last.state.status === 'running' && last.state.heartbeat !== undefined;
    let timer: NodeJS.Timeout | undefined;
    const look = new Promise<'look'>((resolve) => {
      if (heartbeats) timer = setTimeout(() => resolve('look'), HEARTBEAT_LOOK_MS);
    });
    const next = await Promise.race([changes.pending, look]).finally(() => clearTimeout(timer));
    if (next === 'look') return next;
    changes.pending = undefined;
    // A history that could not be read at all: not again at once.
    if (next === undefined && !changes.answered) await pause(RETRY_MS, signal);
    return next;
  }

  /**
   * Watches one task for all its subscribers until it ends, disappears, or nobody holds it: a look
   * after each change of the run's history, and the outcome the moment the run closes.
   */
  private async watch(first: ExecutionView, caller: Caller, watch: Watch): Promise<void> {
    const signal = watch.stop.signal;
    const counted = countOpen(taskWatches);
    let last = first;
    let lastKey = changeKey(this.task(first));
    // Each notification is a span of its own, linked to the trace of the run's start.
    const notify = (view: ExecutionView) => {
      const task = this.task(view);
      if (tracing)
        recordPush(first.trace, 'notifications/tasks', {
          'mcp.task.id': task.taskId,
          'mcp.task.status': task.status,
        });
      for (const push of watch.subscribers) push(task, view);
    };
    const follow = (): Following => ({
      feed: this.deps.waits.changes(first.run, signal),
      answered: false,
    });
    let changes = follow();
    let lookAgain = false;
    let retryMs = FIRST_RETRY_MS;
    try {
      while (!signal.aborted) {
        const next = lookAgain ? 'look' : await this.nextChange(changes, last, signal);
        lookAgain = false;
        if (signal.aborted) return;
        // The long poll failed: look now (the run may be gone), and follow the run anew.
        if (next === undefined) changes = follow();
        if (next === 'closed') {
          // Its outcome now, from the run's close (one call that answers at once).
          const state = await this.deps.waits.outcome(first.run, signal).catch(() => undefined);
          if (signal.aborted) return;
          if (state) return notify({ ...last, lastUpdatedAt: new Date(), state });
        }
        let view: ExecutionView | undefined;
        try {
          view = await this.view(first.task ?? first.taskId, caller);
        } catch {
          // Temporal did not answer: look again after a pause (the change may be the last for long).
          await pause(retryMs, signal);
          retryMs = Math.min(retryMs * 2, RETRY_MS);
          lookAgain = true;
          continue;
        }
        retryMs = FIRST_RETRY_MS;
        if (signal.aborted || !view) return; // gone (its retention ended): nothing more will change
        const task = this.task(view);
        if (changeKey(task) !== lastKey) {
          notify(view);
          lastKey = changeKey(task);
        }
        last = view;
        if (terminal(task)) return;
      }
    } finally {
      counted();
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
