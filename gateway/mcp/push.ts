// Push for Tasks clients: `subscriptions/listen` with the Tasks extension's `notifications.taskIds`
// answered on an SSE stream. The acknowledgement comes first, honouring only the caller's own task
// ids (another principal's and an unknown id are left out alike); then a `notifications/tasks`
// carrying the detailed task (as tasks/get returns it) whenever a subscribed task changes status,
// its status line or its input requests, and the moment it ends. Every gateway watches Temporal
// itself, once per task however many streams hold it: completion through one long poll, progress
// and input at the poll interval, fanned out to every stream. When every subscribed task has ended
// the stream closes with its result; when the client goes away the watches only it held end. Limits
// (streams per gateway and per principal) are taken before any await, so concurrent listens cannot
// all pass one check; a client that stops reading is closed once its stream holds too many frames;
// on shutdown every stream ends with its result. Refusals are thrown as ProtocolErrors (server.ts
// answers them).
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { metrics } from '../shared/metrics.ts';
import { META } from '../shared/protocol.ts';
import { recordPush } from '../shared/tracing.ts';
import type { Caller, TemporalBackend } from '../temporal/backend.ts';
import type { ExecutionState, ExecutionView } from '../temporal/runs.ts';
import { type DetailedTask, declaresTasksExtension, detailedTask, type TaskTiming } from './answers.ts';
import type { Catalog } from './catalog.ts';
import {
  invalidParams,
  missingTasksCapability,
  principalSubscriptionLimit,
  slowSubscriber,
  subscriptionLimit,
} from './errors.ts';

export interface SubscriptionLimits {
  /** Task ids one stream may watch. */
  maxTasksPerStream: number;
  /** Task streams open at once on this gateway. */
  maxStreams: number;
  /** Task streams one principal may hold open at once on this gateway. */
  maxStreamsPerPrincipal: number;
  /** Comment frames that keep idle proxies from closing the stream. */
  keepAliveMs: number;
}

/** Frames a stream may hold unread before its client is taken to have stopped reading. */
export const MAX_UNREAD_FRAMES = 256;

export interface TaskSubscriptionsDeps {
  backend: TemporalBackend;
  catalog: Catalog;
  timing: TaskTiming;
  listen: SubscriptionLimits;
}

interface ListenRequest {
  id: string | number;
  params: { notifications: { taskIds: unknown[] }; _meta?: Record<string, unknown> };
}

/** A `subscriptions/listen` that asks for task notifications (the SDK serves every other one). */
export function listensForTasks(body: unknown): body is ListenRequest {
  const { method, params, id } = (body ?? {}) as { method?: unknown; params?: unknown; id?: unknown };
  const taskIds = (params as { notifications?: { taskIds?: unknown } } | undefined)?.notifications?.taskIds;
  return (
    method === 'subscriptions/listen' &&
    (typeof id === 'string' || typeof id === 'number') &&
    Array.isArray(taskIds)
  );
}

const terminal = (task: DetailedTask) =>
  task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';

/** What a client would notice: status, status line, outstanding input keys. */
const changeKey = (task: DetailedTask) =>
  JSON.stringify([
    task.status,
    task.statusMessage,
    task.status === 'input_required' ? Object.keys(task.inputRequests).sort() : [],
  ]);

type Push = (task: DetailedTask) => void;

/** One task watched on Temporal for every stream that holds it. */
interface Watch {
  subscribers: Set<Push>;
  stop: AbortController;
  ended: Promise<void>;
}

export class TaskSubscriptions {
  private open = 0;
  private readonly openBy = new Map<string, number>();
  private readonly watches = new Map<string, Watch>();
  private readonly closers = new Set<() => void>();

  constructor(private readonly deps: TaskSubscriptionsDeps) {}

  /** Opens the stream (the Response is returned once the acknowledgement is queued). */
  async serve(request: ListenRequest, caller: Caller, signal: AbortSignal): Promise<Response> {
    const { id } = request;
    const limits = this.deps.listen;
    const capabilities = request.params._meta?.[META.clientCapabilities] as ClientCapabilities | undefined;
    if (!declaresTasksExtension(capabilities)) throw missingTasksCapability();
    const requested = [...new Set(request.params.notifications.taskIds)];
    if (!requested.every((taskId): taskId is string => typeof taskId === 'string')) {
      throw invalidParams('Invalid params: notifications.taskIds must be strings');
    }
    if (requested.length > limits.maxTasksPerStream) {
      throw invalidParams(
        `Invalid params: at most ${limits.maxTasksPerStream} taskIds per subscription (MCP_LISTEN_MAX_TASKS); ` +
          `got ${requested.length}`,
      );
    }
    const release = this.reserve(caller.principal);
    try {
      // The caller's own, existing tasks only: a foreign or unknown id is left out, the same way.
      const views = await Promise.all(requested.map((taskId) => this.view(taskId, caller)));
      const honoured = views.filter((view): view is ExecutionView => view !== undefined);
      return this.stream(id, honoured, caller, signal, release);
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Ends every stream with its result (the gateway is shutting down); the watches end with them. */
  closeAll(): void {
    for (const close of [...this.closers]) close();
  }

  /** Takes a stream slot of the gateway and of the principal at once, or refuses; returns its release. */
  private reserve(principal: string): () => void {
    const limits = this.deps.listen;
    if (this.open >= limits.maxStreams) throw subscriptionLimit(limits.maxStreams);
    const held = this.openBy.get(principal) ?? 0;
    if (held >= limits.maxStreamsPerPrincipal)
      throw principalSubscriptionLimit(limits.maxStreamsPerPrincipal);
    this.open++;
    this.openBy.set(principal, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (this.openBy.get(principal) ?? 1) - 1;
      if (left > 0) this.openBy.set(principal, left);
      else this.openBy.delete(principal);
    };
  }

  private view(taskId: string, caller: Caller, withProgress = true): Promise<ExecutionView | undefined> {
    const progressQuery = withProgress ? this.deps.catalog.toolOfTask(taskId)?.progressQuery : undefined;
    return this.deps.backend.view(taskId, caller, { progressQuery });
  }

  private task(view: ExecutionView): DetailedTask {
    return detailedTask(view, this.deps.catalog.toolOfRun(view.tool), this.deps.timing);
  }

  private stream(
    id: string | number,
    views: ExecutionView[],
    caller: Caller,
    signal: AbortSignal,
    release: () => void,
  ): Response {
    const encoder = new TextEncoder();
    const stop = new AbortController();
    const closeCount = metrics.subscriptionOpened();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let keepAlive: NodeJS.Timeout | undefined;
    let closed = false;
    const enqueue = (text: string) => controller.enqueue(encoder.encode(text));
    const message = (body: object) => `event: message\ndata: ${JSON.stringify(body)}\n\n`;
    const close = (graceful: boolean, error?: { code: number; message: string; data?: unknown }) => {
      if (closed) return;
      if (error) enqueue(message({ jsonrpc: '2.0', id, error }));
      else if (graceful) {
        enqueue(
          message({
            jsonrpc: '2.0',
            id,
            result: { resultType: 'complete', _meta: { [META.subscriptionId]: id } },
          }),
        );
      }
      closed = true;
      stop.abort();
      clearInterval(keepAlive);
      signal.removeEventListener('abort', onGone);
      this.closers.delete(closeGracefully);
      release();
      closeCount();
      controller.close();
    };
    const closeGracefully = () => close(true);
    const onGone = () => close(false);
    // A client that stops reading: its frames pile up here (the HTTP layer waits for the socket to
    // drain); past the bound the stream ends with the reason, instead of growing without end.
    const frame = (text: string) => {
      if (closed) return;
      if ((controller.desiredSize ?? 0) < -MAX_UNREAD_FRAMES) {
        const refusal = slowSubscriber(MAX_UNREAD_FRAMES);
        close(false, { code: refusal.code, message: refusal.message, data: refusal.data });
        return;
      }
      enqueue(text);
    };
    const send = (body: object) => frame(message(body));
    const notify = (task: DetailedTask) =>
      send({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...task, _meta: { [META.subscriptionId]: id } },
      });
    const body = new ReadableStream<Uint8Array>({
      start: (streamController) => {
        controller = streamController;
        this.closers.add(closeGracefully);
        send({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: {
            notifications: { taskIds: views.map((view) => view.workflowId) },
            _meta: { [META.subscriptionId]: id },
          },
        });
        keepAlive = setInterval(() => frame(': keepalive\n\n'), this.deps.listen.keepAliveMs);
        signal.addEventListener('abort', onGone, { once: true });
        if (signal.aborted) return close(false);
        Promise.all(views.map((view) => this.subscribe(view, caller, notify, stop.signal))).then(
          () => close(true),
          () => close(false),
        );
      },
      cancel: () => close(false),
    });
    return new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' },
    });
  }

  /**
   * Pushes one task to one stream until it ends or `signal` aborts: its state now, then every
   * change the task's shared watch sees. The watch starts with its first subscriber and stops when
   * the task ends or its last subscriber leaves.
   */
  private subscribe(first: ExecutionView, caller: Caller, push: Push, signal: AbortSignal): Promise<void> {
    const firstTask = this.task(first);
    push(firstTask);
    if (terminal(firstTask) || signal.aborted) return Promise.resolve();
    let watch = this.watches.get(first.workflowId);
    // A watch its last subscriber just left is ending: this subscriber gets a new one.
    if (!watch || watch.stop.signal.aborted) {
      const created: Watch = {
        subscribers: new Set(),
        stop: new AbortController(),
        ended: Promise.resolve(),
      };
      created.ended = this.watch(first, caller, created).finally(() => {
        if (this.watches.get(first.workflowId) === created) this.watches.delete(first.workflowId);
      });
      this.watches.set(first.workflowId, created);
      watch = created;
    }
    const shared = watch;
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
      recordPush(first.trace, 'notifications/tasks', {
        'mcp.task.id': task.taskId,
        'mcp.task.status': task.status,
      });
      for (const push of watch.subscribers) push(task);
    };
    // A long poll that fails (Temporal unreachable for a while) leaves the interval to find the end.
    let closing: Promise<{ state: ExecutionState } | undefined> | undefined = this.deps.backend
      .closed(first.workflowId, signal)
      .then((state) => (state ? { state } : undefined))
      .catch(() => {
        closing = undefined;
        return undefined;
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
