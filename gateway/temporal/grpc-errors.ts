// Temporal's answers classified by gRPC status code or error type, never by message text.
import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { TemporalDeadlineError } from './deadline.ts';

export const GRPC = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  UNAVAILABLE: 14,
} as const;

/** The gRPC status code of the error or of the first gRPC error among its causes. */
export function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 20; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e)) return e.code;
    if (e instanceof TemporalDeadlineError) return GRPC.DEADLINE_EXCEEDED;
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
