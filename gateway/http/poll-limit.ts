// Optional poll rate limiting (MCP_POLL_MIN_INTERVAL_MS): a poll of one task sooner than the
// interval after the previous accepted one is refused with 429 and a Retry-After, counted. Every
// message of a JSON-RPC batch counts (a batch of polls of one task is as fast as the polls); only ids
// issued to the caller are remembered (any other id is answered "not found" without a Temporal
// call, and must not fill the limiter's memory), and the memory has a hard bound.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pollRateLimited } from '../mcp/errors.ts';
import { pollsRateLimited } from '../shared/metrics.ts';
import type { TaskRef } from '../temporal/task-ids.ts';
import type { McpBody } from './body.ts';

/** Every poll in a body, one per polling message of a batch (mcp/methods.ts says which poll). */
export function polledTasks(body: McpBody): TaskRef[] {
  return body.messages.flatMap(({ reading }) => reading.polls);
}

/** Entries the limiter keeps at most, whatever the traffic (the oldest go first past it). */
const MAX_TRACKED_POLLS = 100_000;

/**
 * Remembers when each (principal, task) was last polled. A poll sooner than `minIntervalMs` after
 * the previous accepted one is refused; refused polls do not move the clock. Memory is bounded by
 * forgetting entries older than the interval, and by `maxEntries`.
 */
export class PollRateLimiter {
  private readonly last = new Map<string, number>();
  private nextSweep = 0;

  constructor(
    readonly minIntervalMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = MAX_TRACKED_POLLS,
  ) {}

  /** 0 when the poll may go ahead (and is recorded), else the milliseconds to wait. */
  check(principal: string, taskId: string): number {
    const now = this.now();
    this.sweep(now);
    const key = `${principal}\n${taskId}`;
    const previous = this.last.get(key);
    if (previous !== undefined && now - previous < this.minIntervalMs)
      return this.minIntervalMs - (now - previous);
    // Re-inserted, so the map's order stays oldest-first for eviction.
    this.last.delete(key);
    this.last.set(key, now);
    if (this.last.size > this.maxEntries) {
      const oldest = this.last.keys().next().value;
      if (oldest !== undefined) this.last.delete(oldest);
    }
    return 0;
  }

  get size(): number {
    return this.last.size;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.minIntervalMs;
    for (const [key, at] of this.last) {
      if (now - at < this.minIntervalMs) break; // oldest first: the rest are younger
      this.last.delete(key);
    }
  }
}

export interface PollRateLimitOptions {
  principalOf: (request: FastifyRequest) => string;
  /** Whether the id is one the gateway issued to the principal (a local check, no Temporal call). */
  issuedTo: (task: TaskRef, principal: string) => boolean;
}

/** preHandler hook for /mcp: polls faster than the limiter allows → 429 with a JSON-RPC error, counted. */
export function pollRateLimit(limiter: PollRateLimiter, options: PollRateLimitOptions) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const tasks = polledTasks(request.mcpBody);
    if (tasks.length === 0) return;
    const principal = options.principalOf(request);
    for (const task of tasks) {
      if (!options.issuedTo(task, principal)) continue;
      const taskId = task.id;
      const waitMs = limiter.check(principal, taskId);
      if (waitMs === 0) continue;
      pollsRateLimited.inc();
      return reply
        .code(429)
        .header('retry-after', String(Math.max(1, Math.ceil(waitMs / 1000))))
        .header('content-type', 'application/json')
        .send(pollRateLimited(request.mcpBody.id, taskId, limiter.minIntervalMs, waitMs));
    }
  };
}
