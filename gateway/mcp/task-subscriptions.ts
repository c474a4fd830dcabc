// Push for Tasks clients: `subscriptions/listen` with the Tasks extension's `notifications.taskIds`
// answered on an SSE stream. The acknowledgement comes first, honouring only the caller's own task
// ids (another principal's and an unknown id are left out alike); then a `notifications/tasks`
// carrying the detailed task (as tasks/get returns it) whenever a subscribed task changes status,
// its status line or its input requests, and the moment it ends. Every gateway watches Temporal
// itself: completion through one long poll per task, progress and input at the poll interval. When
// every subscribed task has ended the stream closes with its result; when the client goes away
// every long poll it caused ends.

import { metrics } from '../metrics.ts';
import type { Caller, TemporalBackend } from '../temporal/backend.ts';
import type { ExecutionView } from '../temporal/execution.ts';
import { declaresTasksExtension } from './capabilities.ts';
import type { Catalog } from './catalog.ts';
import {
  errorBody,
  INVALID_PARAMS,
  LIMIT_EXCEEDED,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  missingTasksCapability,
} from './json-rpc-errors.ts';
import { type DetailedTask, detailedTask, type TaskTiming } from './task-mapping.ts';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

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
  limits: SubscriptionLimits;
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

function refusal(id: string | number, status: number, code: number, message: string, data?: object) {
  return Response.json(errorBody(id, code, message, data as Record<string, unknown>), { status });
}

export class TaskSubscriptions {
  private open = 0;

  constructor(private readonly deps: TaskSubscriptionsDeps) {}

  async serve(request: ListenRequest, caller: Caller, signal: AbortSignal): Promise<Response> {
    const { id } = request;
    const { limits } = this.deps;
    const capabilities = request.params._meta?.[CLIENT_CAPABILITIES];
    if (!declaresTasksExtension(capabilities as never)) {
      const error = missingTasksCapability();
      return refusal(id, 400, MISSING_REQUIRED_CLIENT_CAPABILITY, error.message, error.data as object);
    }
    const requested = [...new Set(request.params.notifications.taskIds)];
    if (!requested.every((taskId): taskId is string => typeof taskId === 'string')) {
      return refusal(id, 400, INVALID_PARAMS, 'Invalid params: notifications.taskIds must be strings');
    }
    if (requested.length > limits.maxTasksPerStream) {
      return refusal(
        id,
        400,
        INVALID_PARAMS,
        `Invalid params: at most ${limits.maxTasksPerStream} taskIds per subscription (MCP_LISTEN_MAX_TASKS); ` +
          `got ${requested.length}`,
      );
    }
    if (this.open >= limits.maxStreams) {
      return refusal(
        id,
        429,
        LIMIT_EXCEEDED,
        `Too many task subscriptions open on this gateway (the limit is ${limits.maxStreams}, ` +
          'MCP_LISTEN_MAX_STREAMS); poll with tasks/get or try again later',
        { reason: 'subscription_limit' },
      );
    }
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
        send({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: id } } });
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
        params: { ...task, _meta: { [SUBSCRIPTION_ID]: id } },
      });
    const body = new ReadableStream<Uint8Array>({
      start: (streamController) => {
        controller = streamController;
        send({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: {
            notifications: { taskIds: views.map((view) => view.workflowId) },
            _meta: { [SUBSCRIPTION_ID]: id },
          },
        });
        keepAlive = setInterval(() => frame(': keepalive\n\n'), this.deps.limits.keepAliveMs);
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
    notify: (task: DetailedTask) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let last = first;
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
