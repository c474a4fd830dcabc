import type { Caller } from '../shared/caller.ts';
import { countOpen, taskSubscriptions } from '../shared/metrics.ts';
import { META } from '../shared/protocol.ts';
import type { FleetSize } from '../temporal/fleet.ts';
import { gatewayShare } from '../temporal/principal-limits.ts';
import type { ExecutionView } from '../temporal/run-state.ts';
import type { ParsedTaskIds } from '../temporal/task-ids.ts';
import {
  errorResponse,
  invalidParams,
  principalSubscriptionLimit,
  slowSubscriber,
  subscriptionLimit,
} from './errors.ts';
import type { SubscriptionLimits } from './method-context.ts';
import type { DetailedTask } from './task-shapes.ts';
import { type Push, TaskWatches, type TaskWatchesDeps } from './task-watches.ts';

/** Frames a stream may hold unread before its client is taken to have stopped reading. */
const MAX_UNREAD_FRAMES = 256;

export interface ListenRequest {
  id: string | number;
  params: { notifications: { taskIds: unknown[] }; _meta?: Record<string, unknown> };
}

type JsonRpcError = { code: number; message: string; data?: unknown };

const message = (body: object) => `event: message\ndata: ${JSON.stringify(body)}\n\n`;

/** One SSE stream: its frames, the bound on frames its client has not read, and its one end. */
class TaskStream {
  readonly stop = new AbortController();
  private readonly encoder = new TextEncoder();
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;

  constructor(
    private readonly id: string | number,
    /** Runs once, when the stream ends however it ends. */
    private readonly onClose: () => void,
  ) {}

  /** The Response carrying the stream; `start` runs once it can take frames. */
  response(start: () => void): Response {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
        start();
      },
      cancel: () => this.close(false),
    });
    return new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' },
    });
  }

  /** One JSON-RPC message as an event. */
  send(body: object): void {
    this.frame(message(body));
  }

  /**
   * A client that stops reading: its frames pile up here (the HTTP layer waits for the socket to
   * drain); past the bound the stream ends with the reason, instead of growing without end.
   */
  frame(text: string): void {
    if (this.closed) return;
    if ((this.controller.desiredSize ?? 0) < -MAX_UNREAD_FRAMES) {
      const refusal = slowSubscriber(MAX_UNREAD_FRAMES);
      this.close(false, { code: refusal.code, message: refusal.message, data: refusal.data });
      return;
    }
    this.enqueue(text);
  }

  private enqueue(text: string): void {
    this.controller.enqueue(this.encoder.encode(text));
  }

  /** Ends the stream: with its result when `graceful`, with `error` when given, else just closed. */
  close(graceful: boolean, error?: JsonRpcError): void {
    if (this.closed) return;
    const id = this.id;
    // The last frame goes past the bound on unread frames: it is the reason, or the result.
    if (error) this.enqueue(message({ jsonrpc: '2.0', id, error }));
    else if (graceful)
      this.enqueue(
        message({
          jsonrpc: '2.0',
          id,
          result: { resultType: 'complete', _meta: { [META.subscriptionId]: id } },
        }),
      );
    this.closed = true;
    this.stop.abort();
    this.onClose();
    this.controller.close();
  }
}

/** One stream to open: for which request, which tasks, whose, until when, and its slot's release. */
interface StreamPlan {
  id: string | number;
  views: ExecutionView[];
  caller: Caller;
  callerLeft: AbortSignal;
  release: () => void;
}

export class TaskSubscriptions {
  private open = 0;
  private readonly openBy = new Map<string, number>();
  private readonly closers = new Set<() => void>();
  private readonly watches: TaskWatches;

  constructor(private readonly deps: TaskWatchesDeps & { listen: SubscriptionLimits; fleet: FleetSize }) {
    this.watches = new TaskWatches(deps);
  }

  /**
   * Opens the stream for a request that declared the Tasks extension (handler.ts checks it); the
   * Response is returned once the acknowledgement is queued.
   */
  async serve(
    request: ListenRequest,
    caller: Caller,
    callerLeft: AbortSignal,
    named: ParsedTaskIds,
  ): Promise<Response> {
    const { id } = request;
    const limits = this.deps.listen;
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
      const views = await Promise.all(requested.map((taskId) => this.watches.view(named(taskId), caller)));
      const honoured = views.filter((view): view is ExecutionView => view !== undefined);
      return this.stream({ id, views: honoured, caller, callerLeft, release });
    } catch (err) {
      release();
      throw err;
    }
  }

  /**
   * A 2025-11-25 tasks/result stream on one task: counted with the push streams (a stream of the
   * gateway's and of the principal's, refused past their limits), and served by the task's one watch.
   * Resolves when the task ends or `signal` aborts.
   */
  async follow(first: ExecutionView, caller: Caller, push: Push, signal: AbortSignal): Promise<void> {
    const release = this.reserve(caller.principal);
    try {
      await this.watches.subscribe(first, caller, push, signal);
    } finally {
      release();
    }
  }

  /**
   * A stream the SDK serves (subscriptions/listen without taskIds, for its own events), counted with
   * the task streams: refused past their limits as they are; its slot is released when its body ends.
   */
  async counted(id: unknown, principal: string, open: () => Promise<Response>): Promise<Response> {
    let release = () => {};
    try {
      release = this.reserve(principal);
      const response = await open();
      if (response.body) return withEnd(response, release);
      release();
      return response;
    } catch (err) {
      release();
      return errorResponse(id, err);
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
    const { fleet } = this.deps;
    if (held >= gatewayShare(limits.maxStreamsPerPrincipal, fleet))
      throw principalSubscriptionLimit(limits.maxStreamsPerPrincipal, fleet.gateways);
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

  private stream({ id, views, caller, callerLeft, release }: StreamPlan): Response {
    const closeCount = countOpen(taskSubscriptions);
    let keepAlive: NodeJS.Timeout | undefined;
    const closeGracefully = () => stream.close(true);
    const onGone = () => stream.close(false);
    const stream = new TaskStream(id, () => {
      clearInterval(keepAlive);
      callerLeft.removeEventListener('abort', onGone);
      this.closers.delete(closeGracefully);
      release();
      closeCount();
    });
    const notify = (task: DetailedTask) =>
      stream.send({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...task, _meta: { [META.subscriptionId]: id } },
      });
    return stream.response(() => {
      this.closers.add(closeGracefully);
      stream.send({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { taskIds: views.map((view) => view.taskId) },
          _meta: { [META.subscriptionId]: id },
        },
      });
      keepAlive = setInterval(() => stream.frame(': keepalive\n\n'), this.deps.listen.keepAliveMs);
      callerLeft.addEventListener('abort', onGone, { once: true });
      if (callerLeft.aborted) return stream.close(false);
      Promise.all(views.map((view) => this.watches.subscribe(view, caller, notify, stream.stop.signal))).then(
        () => stream.close(true),
        () => stream.close(false),
      );
    });
  }
}

/** The response with a body that calls `onEnd` once it has ended: read to its end, failed or cancelled. */
function withEnd(response: Response, onEnd: () => void): Response {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        onEnd();
        controller.close();
      } catch (err) {
        onEnd();
        controller.error(err);
      }
    },
    cancel(reason) {
      onEnd();
      return reader.cancel(reason);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}
