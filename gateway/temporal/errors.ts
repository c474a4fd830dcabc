// What can go wrong talking to Temporal, classified by gRPC status code or error type (never by
// message text), and the backend's own refusals. The MCP layer turns these into JSON-RPC errors.
import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';

export const GRPC = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  UNAVAILABLE: 14,
} as const;

/**
 * A Temporal call that reached its hard deadline. gRPC deadlines bound each attempt, but with
 * Temporal down the client's connection retries can outlast them; this is the answer at the
 * deadline itself, and reads as "Temporal unreachable or too slow".
 */
export class TemporalDeadlineError extends Error {
  readonly code = GRPC.DEADLINE_EXCEEDED;
  constructor(timeoutMs: number) {
    super(`Deadline exceeded: Temporal did not answer within ${timeoutMs} ms`);
    this.name = 'TemporalDeadlineError';
  }
}

/**
 * Temporal is known down: its address refuses connections. `sent`: false when the call was refused
 * before it was sent (nothing reached Temporal), true when it was given up on in flight.
 */
export class TemporalUnreachableError extends Error {
  readonly code = GRPC.UNAVAILABLE;
  constructor(
    address: string | undefined,
    readonly sent: boolean,
  ) {
    super(`Temporal is unreachable: ${address ?? 'its address'} refuses connections`);
    this.name = 'TemporalUnreachableError';
  }
}

/** A resources/list cursor the visibility store does not take (not one it gave). */
export class InvalidCursorError extends Error {
  constructor() {
    super('invalid cursor');
    this.name = 'InvalidCursorError';
  }
}

/** A keyed start whose key was used before with other arguments (`fields` differ). */
export class IdempotencyConflictError extends Error {
  constructor(
    readonly key: string,
    readonly tool: string,
    readonly fields: string[],
  ) {
    super(`idempotency key "${key}" of ${tool} was used with other arguments (${fields.join(', ')})`);
    this.name = 'IdempotencyConflictError';
  }
}

/** A start refused because the principal already has `limit` running tasks. */
export class RunningTaskLimitError extends Error {
  constructor(
    readonly principal: string,
    readonly running: number,
    readonly limit: number,
  ) {
    super(`"${principal}" has ${running} running tasks (the limit is ${limit})`);
    this.name = 'RunningTaskLimitError';
  }
}

/** A start refused before anything was sent: the principal's starts per second (this gateway's share) are spent. */
export class StartRateLimitError extends Error {
  constructor(
    readonly perSecond: number,
    readonly retryAfterMs: number,
    /** The gateways sharing the bound, as Temporal counts them (fleet.ts). */
    readonly gateways = 1,
  ) {
    super(`more than ${perSecond} starts a second by one principal`);
    this.name = 'StartRateLimitError';
  }
}

/** A call that would wait refused before anything was done: the principal holds this gateway's share of `limit` waits. */
export class WaitLimitError extends Error {
  constructor(
    readonly limit: number,
    /** The gateways sharing the bound, as Temporal counts them (fleet.ts). */
    readonly gateways = 1,
  ) {
    super(`more than ${limit} waits at once by one principal`);
    this.name = 'WaitLimitError';
  }
}

/**
 * Temporal refused to start a run as asked (INVALID_ARGUMENT: a search attribute the namespace does
 * not have, a memo or details over its size limits, …): nothing started. The cause is for the log.
 */
export class StartRefusedError extends Error {
  constructor(override readonly cause: unknown) {
    super(`Temporal refused the start: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StartRefusedError';
  }
}

/**
 * Temporal did not answer before the run's own start was sent (taking its slot of the cap): no run
 * exists under `workflowId`, so calling again starts nothing twice.
 */
export class NotStartedError extends Error {
  constructor(
    readonly workflowId: string,
    override readonly cause: unknown,
  ) {
    super(`${workflowId} was not started: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'NotStartedError';
  }
}

/** Temporal did not confirm a start in time, and the run could not be found either: it may exist. */
export class StartUnconfirmedError extends Error {
  constructor(
    readonly workflowId: string,
    override readonly cause: unknown,
  ) {
    super(`the start of ${workflowId} was not confirmed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StartUnconfirmedError';
  }
}

/** The gRPC status code of the error or of the first gRPC error among its causes. */
export function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 20; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e)) return e.code;
    if (e instanceof TemporalDeadlineError) return GRPC.DEADLINE_EXCEEDED;
    if (e instanceof TemporalUnreachableError) return GRPC.UNAVAILABLE;
  }
  return undefined;
}

/** No run has this id (or the id is malformed for Temporal). */
export function isRunNotFound(err: unknown): boolean {
  const code = grpcCode(err);
  return err instanceof WorkflowNotFoundError || code === GRPC.NOT_FOUND || code === GRPC.INVALID_ARGUMENT;
}

/** Cancel or signal on a run that closed after we described it: nothing left to do. */
export function isClosedMeanwhile(err: unknown): boolean {
  const code = grpcCode(err);
  return err instanceof WorkflowNotFoundError || code === GRPC.NOT_FOUND || code === GRPC.FAILED_PRECONDITION;
}

/**
 * The call ran out of its deadline. Temporal answers an unanswerable query either way depending on
 * timing: DEADLINE_EXCEEDED or, when its own context ends first, CANCELLED.
 */
export function isDeadline(err: unknown): boolean {
  const code = grpcCode(err);
  return code === GRPC.DEADLINE_EXCEEDED || code === GRPC.CANCELLED;
}

/** Temporal could not be reached or did not answer in time, rather than refusing the request. */
export function isTemporalUnavailable(err: unknown): boolean {
  if (isDeadline(err) || grpcCode(err) === GRPC.UNAVAILABLE) return true;
  for (let e: unknown = err, depth = 0; e && depth < 20; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
  }
  return false;
}
