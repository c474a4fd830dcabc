// Optional poll rate limiting (MCP_POLL_MIN_INTERVAL_MS): a poll of one task sooner than the
// interval after the previous accepted one is refused with 429 and a Retry-After, counted.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pollRateLimited } from '../mcp/errors.ts';
import { metrics } from '../shared/metrics.ts';

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
    return reply
      .code(429)
      .header('retry-after', String(Math.max(1, Math.ceil(waitMs / 1000))))
      .header('content-type', 'application/json')
      .send(pollRateLimited((request.body as { id?: unknown }).id, taskId, limiter.minIntervalMs, waitMs));
  };
}
