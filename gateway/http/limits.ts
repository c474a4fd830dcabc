// Request limits on /mcp: the body size (413), a malformed body as a JSON-RPC parse error, and
// optional poll rate limiting (429).
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, INVALID_REQUEST, LIMIT_EXCEEDED, PARSE_ERROR } from '../mcp/json-rpc-errors.ts';
import { metrics } from '../metrics.ts';

function jsonRpcError(
  reply: FastifyReply,
  status: number,
  id: unknown,
  code: number,
  message: string,
  data?: Record<string, unknown>,
) {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send(errorBody(id, code, message, data));
}

/** Most of a refused body read (and dropped) before the 413 goes out, and for how long. */
export const DRAIN_LIMIT = { bytes: 64 * 1024 * 1024, ms: 10_000 };

/**
 * Reads and drops the rest of a request body, up to a bound. A client still writing its body when
 * the server answers and closes gets EPIPE instead of the answer; letting it finish first delivers
 * the 413. Past the bound (a body too large to wait for) the answer goes out anyway.
 */
export function drainRequest(raw: IncomingMessage, limit = DRAIN_LIMIT): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', finish);
      raw.off('error', finish);
      raw.off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limit.bytes) finish();
    };
    const timer = setTimeout(finish, limit.ms);
    raw.on('data', onData);
    raw.once('end', finish);
    raw.once('error', finish);
    raw.once('close', finish);
    raw.resume();
  });
}

/**
 * Error handler of the /mcp route: what Fastify refuses before the MCP handler sees the request
 * (a body over the limit, a body that is not JSON, an unsupported content type) as JSON-RPC errors.
 */
export function mcpRequestErrorHandler(bodyLimitBytes: number) {
  return async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        await drainRequest(request.raw);
        reply.header('connection', 'close');
        return jsonRpcError(
          reply,
          413,
          null,
          INVALID_REQUEST,
          `Request body too large: the limit is ${bodyLimitBytes} bytes`,
        );
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return jsonRpcError(reply, 400, null, PARSE_ERROR, `Parse error: ${error.message}`);
      default: {
        const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
        if (status >= 500) throw error;
        return jsonRpcError(reply, status, null, INVALID_REQUEST, error.message);
      }
    }
  };
}

/** The task a poll asks about: tasks/get's taskId, a result companion's workflow_id. */
export function polledTaskId(body: unknown, isPollTool: (name: string) => boolean): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: Record<string, unknown> };
  if (method === 'tasks/get' && typeof params?.taskId === 'string') return params.taskId;
  if (method === 'tools/call' && typeof params?.name === 'string' && isPollTool(params.name)) {
    const id = (params.arguments as Record<string, unknown> | undefined)?.workflow_id;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

/**
 * Remembers when each (principal, task) was last polled. A poll sooner than `minIntervalMs` after
 * the previous accepted one is refused; refused polls do not move the clock. Memory is bounded by
 * forgetting entries older than the interval.
 */
export class PollRateLimiter {
  private readonly last = new Map<string, number>();
  private nextSweep = 0;

  constructor(
    readonly minIntervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** 0 when the poll may go ahead (and is recorded), else the milliseconds to wait. */
  check(principal: string, taskId: string): number {
    const now = this.now();
    this.sweep(now);
    const key = `${principal}\n${taskId}`;
    const previous = this.last.get(key);
    if (previous !== undefined && now - previous < this.minIntervalMs)
      return this.minIntervalMs - (now - previous);
    this.last.set(key, now);
    return 0;
  }

  get size(): number {
    return this.last.size;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.minIntervalMs;
    for (const [key, at] of this.last) if (now - at >= this.minIntervalMs) this.last.delete(key);
  }
}

/** preHandler hook for /mcp: polls faster than the limiter allows → 429 with a JSON-RPC error, counted. */
export function pollRateLimit(
  limiter: PollRateLimiter,
  principalOf: (request: FastifyRequest) => string,
  isPollTool: (name: string) => boolean,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const taskId = polledTaskId(request.body, isPollTool);
    if (taskId === undefined) return;
    const waitMs = limiter.check(principalOf(request), taskId);
    if (waitMs === 0) return;
    metrics.pollRateLimited();
    reply.header('retry-after', String(Math.max(1, Math.ceil(waitMs / 1000))));
    return jsonRpcError(
      reply,
      429,
      (request.body as { id?: unknown }).id,
      LIMIT_EXCEEDED,
      `Polling too fast: poll task "${taskId}" at most every ${limiter.minIntervalMs} ms ` +
        `(try again in ${waitMs} ms; pollIntervalMs / poll_after_seconds give the pace)`,
      { reason: 'poll_rate_limited', retryAfterMs: waitMs },
    );
  };
}
