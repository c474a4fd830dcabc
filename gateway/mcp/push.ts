// Push for Tasks clients: `subscriptions/listen` with the Tasks extension's `notifications.taskIds`
// answered on an SSE stream. The acknowledgement comes first, honouring only the caller's own task
// ids (another principal's and an unknown id are left out alike); then a `notifications/tasks`
// carrying the detailed task (as tasks/get returns it) whenever a subscribed task changes status,
// its status line or its input requests, and the moment it ends. Every gateway watches Temporal
// itself: completion through one long poll per task, progress and input at the poll interval. When
// every subscribed task has ended the stream closes with its result; when the client goes away
// every long poll it caused ends. Refusals are thrown as ProtocolErrors (server.ts answers them).
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { metrics } from '../shared/metrics.ts';
import { META } from '../shared/protocol.ts';
import { recordPush } from '../shared/tracing.ts';
import type { Caller, TemporalBackend } from '../temporal/backend.ts';
import type { ExecutionView } from '../temporal/runs.ts';
import { type DetailedTask, declaresTasksExtension, detailedTask, type TaskTiming } from './answers.ts';
import type { Catalog } from './catalog.ts';
import { invalidParams, missingTasksCapability, subscriptionLimit } from './errors.ts';

export interface SubscriptionLimits {
  /** Task ids one stream may watch. */
  maxTasksPerStream: number;
  /** Task streams open at once on this gateway. */
  maxStreams: number;
  /** Comment frames that keep idle proxies from closing the stream. */
  keepAliveMs: number;
}

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

export class TaskSubscriptions {
  private open = 0;

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
    if (this.open >= limits.maxStreams) throw subscriptionLimit(limits.maxStreams);
    // The caller's own, existing tasks only: a foreign or unknown id is left out, the same way.
    const views = await Promise.all(requested.map((taskId) => this.view(taskId, caller)));
    const honoured = views.filter((view): view is ExecutionView => view !== undefined);
    return this.stream(id, honoured, caller, signal);
  }

  private view(taskId: string, caller: Caller, withProgress = true): Promise<ExecutionView | undefined> {
    const progressQuery = withProgress ? this.deps.catalog.toolOfTask(taskId)?.progressQuery : undefined;
    return this.deps.backend.view(taskId, caller, { progressQuery });
  }

  private task(view: ExecutionView): DetailedTask {
    return detailedTask(view, this.deps.catalog.toolOfRun(view.tool), this.deps.timing);
  }

  private stream(id: string | number, views: ExecutionView[], caller: Caller, signal: AbortSignal): Response {
    const encoder = new TextEncoder();
    const stop = new AbortController();
    const closeCount = metrics.subscriptionOpened();
    this.open++;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let keepAlive: NodeJS.Timeout | undefined;
    let closed = false;
    const frame = (text: string) => {
      if (!closed) controller.enqueue(encoder.encode(text));
    };
    const send = (message: object) => frame(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    const close = (graceful: boolean) => {
      if (closed) return;
      if (graceful) {
        send({
          jsonrpc: '2.0',
          id,
          result: { resultType: 'complete', _meta: { [META.subscriptionId]: id } },
        });
      }
      closed = true;
      stop.abort();
      clearInterval(keepAlive);
      signal.removeEventListener('abort', onGone);
      this.open--;
      closeCount();
      controller.close();
    };
    const onGone = () => close(false);
    const notify = (task: DetailedTask) =>
      send({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...task, _meta: { [META.subscriptionId]: id } },
      });
    const body = new ReadableStream<Uint8Array>({
      start: (streamController) => {
        controller = streamController;
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
        Promise.all(views.map((view) => this.watch(view, caller, notify, stop.signal))).then(
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

  /** Resolves after the poll interval, or at once when `signal` aborts. */
  private tick(signal: AbortSignal): Promise<'tick'> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve('tick');
      };
      const timer = setTimeout(done, this.deps.timing.pollIntervalMs);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Pushes one task until it ends or `signal` aborts: its state now, then its outcome the moment
   * the run closes (the long poll), and any change the poll interval shows before that.
   */
  private async watch(
    first: ExecutionView,
    caller: Caller,
    push: (task: DetailedTask) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let last = first;
    // Each notification is a span of its own, linked to the trace of the run's start.
    const notify = (task: DetailedTask) => {
      recordPush(first.trace, 'notifications/tasks', {
        'mcp.task.id': task.taskId,
        'mcp.task.status': task.status,
      });
      push(task);
    };
    const firstTask = this.task(first);
    let lastKey = changeKey(firstTask);
    notify(firstTask);
    if (terminal(firstTask)) return;
    // A long poll that fails (Temporal unreachable for a while) leaves the interval to find the end.
    const closing = this.deps.backend
      .closed(first.workflowId, signal)
      .then((state) => (state ? { state } : undefined))
      .catch(() => new Promise<never>(() => {}));
    while (!signal.aborted) {
      const next = await Promise.race([closing, this.tick(signal)]);
      if (signal.aborted) return;
      if (next && next !== 'tick') {
        // Closed: its outcome now, from what the long poll returned (no further call).
        notify(this.task({ ...last, lastUpdatedAt: new Date(), state: next.state }));
        return;
      }
      const view = await this.view(first.workflowId, caller).catch(() => undefined);
      if (!view || signal.aborted) continue;
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
