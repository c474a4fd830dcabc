// One Temporal watch per task per gateway, fanned out to every stream that holds it: the outcome the
// moment the run closes (one long poll), and changes the steady interval shows before that (status,
// status line, outstanding input). The watch starts with its first subscriber and stops when the
// task ends or its last subscriber leaves.
import { recordPush, tracing } from '../shared/tracing.ts';
import type { TemporalBackend } from '../temporal/backend.ts';
import type { Caller } from '../temporal/run-memo.ts';
import type { ExecutionState, ExecutionView, RunRef } from '../temporal/run-state.ts';
import type { Catalog } from './catalog.ts';
import type { TaskTiming } from './start-poll.ts';
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

export type Push = (task: DetailedTask) => void;

/** One task watched on Temporal for every stream that holds it. */
interface Watch {
  subscribers: Set<Push>;
  stop: AbortController;
  ended: Promise<void>;
}

export interface TaskWatchesDeps {
  backend: TemporalBackend;
  catalog: Catalog;
  timing: TaskTiming;
}

export class TaskWatches {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly deps: TaskWatchesDeps) {}

  /** The caller's task as it is now (with its progress, unless `withProgress` is false). */
  view(taskId: string, caller: Caller, withProgress = true): Promise<ExecutionView | undefined> {
    const source = withProgress ? (this.deps.catalog.toolOfTask(taskId)?.progress ?? {}) : {};
    return this.deps.backend.views.of(taskId, caller, source);
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
    push(firstTask);
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
    const open = this.watches.get(first.workflowId);
    if (open && !open.stop.signal.aborted) return open;
    const created: Watch = { subscribers: new Set(), stop: new AbortController(), ended: Promise.resolve() };
    created.ended = this.watch(first, caller, created).finally(() => {
      if (this.watches.get(first.workflowId) === created) this.watches.delete(first.workflowId);
    });
    this.watches.set(first.workflowId, created);
    return created;
  }

  /**
   * Resolves after the steady interval, or at once when `signal` aborts. Not the adaptive advice:
   * there is one watch per task per gateway (not a crowd to spread out), its close comes from the
   * long poll at once, and a steady look is what subscribers count on to see progress and input.
   */
  private tick(signal: AbortSignal): Promise<'tick'> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve('tick');
      };
      const timer = setTimeout(done, this.deps.timing.watchIntervalMs);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** The run's outcome the moment it closes; undefined when the long poll fails or is stopped. */
  private closing(run: RunRef, signal: AbortSignal): Promise<{ state: ExecutionState } | undefined> {
    return this.deps.backend.waits
      .closed(run, signal)
      .then((state) => (state ? { state } : undefined))
      .catch(() => undefined);
  }

  /**
   * Watches one task for all its subscribers until it ends, disappears, or nobody holds it: the
   * outcome the moment the run closes (the long poll), and any change the poll interval shows
   * before that.
   */
  private async watch(first: ExecutionView, caller: Caller, watch: Watch): Promise<void> {
    const signal = watch.stop.signal;
    let last = first;
    let lastKey = changeKey(this.task(first));
    // Each notification is a span of its own, linked to the trace of the run's start.
    const notify = (task: DetailedTask) => {
      if (tracing)
        recordPush(first.trace, 'notifications/tasks', {
          'mcp.task.id': task.taskId,
          'mcp.task.status': task.status,
        });
      for (const push of watch.subscribers) push(task);
    };
    // A long poll that fails (Temporal unreachable for a while) leaves the interval to find the end.
    let closing: Promise<{ state: ExecutionState } | undefined> | undefined = this.closing(first.run, signal);
    closing.then((closed) => {
      if (!closed && !signal.aborted) closing = undefined;
    });
    while (!signal.aborted) {
      const next = await (closing ? Promise.race([closing, this.tick(signal)]) : this.tick(signal));
      if (signal.aborted) return;
      if (next && next !== 'tick') {
        // Closed: its outcome now, from what the long poll returned (no further call).
        notify(this.task({ ...last, lastUpdatedAt: new Date(), state: next.state }));
        return;
      }
      let view: ExecutionView | undefined;
      try {
        view = await this.view(first.workflowId, caller);
      } catch {
        continue; // Temporal did not answer: look again at the next tick
      }
      if (signal.aborted) return;
      if (!view) return; // gone (its retention ended): nothing more will ever change
      const task = this.task(view);
      if (changeKey(task) !== lastKey) {
        notify(task);
        lastKey = changeKey(task);
      }
      last = view;
      if (terminal(task)) return;
    }
  }
}
