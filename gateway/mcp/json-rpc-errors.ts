// Errors the gateway answers with, as JSON-RPC codes: one place for codes, messages and data.

import { ProtocolError } from '@modelcontextprotocol/server';
import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { TASKS_EXTENSION } from './capabilities.ts';

export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** tasks/* on an id that is unknown, expired, or not the caller's: one answer for all three. */
export function taskNotFound(): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, 'Failed to retrieve task: Task not found');
}

/** tasks/* from a request that did not declare the Tasks extension. */
export function missingTasksCapability(): ProtocolError {
  return new ProtocolError(MISSING_REQUIRED_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

export function invalidParams(message: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, message);
}

/** gRPC status codes that mean "Temporal could not be reached or did not answer in time". */
const UNAVAILABLE_CODES = new Set([
  1, // CANCELLED (our own deadline or abort)
  4, // DEADLINE_EXCEEDED
  14, // UNAVAILABLE
]);

function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if (isGrpcServiceError(e)) return e.code;
  }
  return undefined;
}

/** True when the error says Temporal is unreachable or too slow, rather than a refusal. */
export function isTemporalUnavailable(err: unknown): boolean {
  const code = grpcCode(err);
  if (code !== undefined) return UNAVAILABLE_CODES.has(code);
  const message = err instanceof Error ? err.message : String(err);
  return /deadline exceeded|unavailable|ECONNREFUSED|failed to connect|connection refused/i.test(message);
}

/**
 * Any error thrown while serving a request → the ProtocolError the client receives. Errors that are
 * already JSON-RPC errors pass through; Temporal's "not found" is the unknown-task error.
 */
export function toProtocolError(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (err instanceof WorkflowNotFoundError) return taskNotFound();
  if (isTemporalUnavailable(err)) {
    return new ProtocolError(
      INTERNAL_ERROR,
      'Temporal is unreachable or did not answer in time; try again shortly',
      { reason: 'temporal_unavailable' },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProtocolError(INTERNAL_ERROR, `Internal error: ${message}`);
}
