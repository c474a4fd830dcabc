// Request limits on /mcp: the body size (413), a malformed body as a JSON-RPC parse error, the
// per-principal cap on running tasks, and optional poll rate limiting (429).
import { ProtocolError } from '@modelcontextprotocol/server';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** JSON-RPC codes of these answers: -32700/-32600 are the spec's; -32000 is a server error. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const LIMIT_EXCEEDED = -32000;

function jsonRpcError(reply: FastifyReply, status: number, id: unknown, error: Record<string, unknown>) {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send({ jsonrpc: '2.0', id: id ?? null, error });
}

/**
 * Error handler of the /mcp route: what Fastify refuses before the MCP handler sees the request
 * (a body over the limit, a body that is not JSON, an unsupported content type) as JSON-RPC errors.
 */
export function mcpRequestErrorHandler(bodyLimitBytes: number) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return jsonRpcError(reply, 413, null, {
          code: INVALID_REQUEST,
          message: `Request body too large: the limit is ${bodyLimitBytes} bytes`,
        });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return jsonRpcError(reply, 400, null, {
          code: PARSE_ERROR,
          message: `Parse error: ${error.message}`,
        });
      default: {
        const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
        if (status >= 500) throw error;
        return jsonRpcError(reply, status, null, { code: INVALID_REQUEST, message: error.message });
      }
    }
  };
}

/** A start refused because the principal already has `limit` running tasks. */
export function runningTaskLimit(principal: string, running: number, limit: number): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `Too many running tasks: "${principal}" has ${running} running (the limit is ${limit}). ` +
      'Wait for one to finish or cancel one, then start again.',
    { reason: 'running_task_limit', running, limit },
  );
}

/** The task a poll asks about: tasks/get's taskId, get_mining_result's workflow_id. */
export function polledTaskId(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: Record<string, unknown> };
  if (method === 'tasks/get' && typeof params?.taskId === 'string') return params.taskId;
  if (method === 'tools/call' && params?.name === 'get_mining_result') {
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

/** preHandler hook for /mcp: polls faster than the limiter allows → 429 with a JSON-RPC error. */
export function pollRateLimit(limiter: PollRateLimiter, principalOf: (request: FastifyRequest) => string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const taskId = polledTaskId(request.body);
    if (taskId === undefined) return;
    const waitMs = limiter.check(principalOf(request), taskId);
    if (waitMs === 0) return;
    reply.header('retry-after', String(Math.max(1, Math.ceil(waitMs / 1000))));
    return jsonRpcError(reply, 429, (request.body as { id?: unknown }).id, {
      code: LIMIT_EXCEEDED,
      message:
        `Polling too fast: poll task "${taskId}" at most every ${limiter.minIntervalMs} ms ` +
        `(try again in ${waitMs} ms; pollIntervalMs / poll_after_seconds give the pace)`,
      data: { reason: 'poll_rate_limited', retryAfterMs: waitMs },
    });
  };
}
