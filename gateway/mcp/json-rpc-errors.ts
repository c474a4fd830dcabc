// Every JSON-RPC error the gateway answers with, in one place: codes (the SDK's own constants where
// the spec defines them), messages and data.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isRunNotFound, isTemporalUnavailable } from '../temporal/grpc-errors.ts';
import { TASKS_EXTENSION } from './capabilities.ts';

export const PARSE_ERROR = ProtocolErrorCode.ParseError;
export const INVALID_REQUEST = ProtocolErrorCode.InvalidRequest;
export const INVALID_PARAMS = ProtocolErrorCode.InvalidParams;
export const INTERNAL_ERROR = ProtocolErrorCode.InternalError;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = ProtocolErrorCode.MissingRequiredClientCapability;
/** Implementation-defined server error (JSON-RPC reserves -32000..-32099): a limit was hit. */
export const LIMIT_EXCEEDED = -32000;
/** Body of a 401 (no MCP-defined code exists for it). */
export const UNAUTHORIZED = -32001;
/** Body of a 403 `insufficient_scope`: the token is good but lacks a scope the request needs. */
export const FORBIDDEN = -32003;

const TASK_NOT_FOUND_MESSAGE = 'Failed to retrieve task: Task not found';

/** tasks/* on an id that is unknown, expired, or not the caller's: one answer for all three. */
export function taskNotFound(): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, TASK_NOT_FOUND_MESSAGE, { reason: 'task_not_found' });
}

export function isTaskNotFound(err: unknown): boolean {
  return (
    err instanceof ProtocolError &&
    (err.data as { reason?: unknown } | undefined)?.reason === 'task_not_found'
  );
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

/** A keyed start whose key was used before with other arguments. */
export function idempotencyConflict(key: string, tool: string, fields: string[]): ProtocolError {
  return invalidParams(
    `Invalid arguments for tool ${tool}: idempotency_key conflict: the key "${key}" was already used for a ` +
      `${tool} call with different arguments (${fields.join(', ')}); use a new idempotency_key for a new request, ` +
      'or repeat the original arguments to get the original task',
  );
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

/**
 * Any error thrown while serving a request → the ProtocolError the client receives. Errors that are
 * already JSON-RPC errors pass through; Temporal's "not found" is the unknown-task error.
 */
export function toProtocolError(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (isRunNotFound(err)) return taskNotFound();
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

/** HTTP 503 body: the token could not be checked because the authorization server did not answer. */
export function authorizationServerUnavailable(reason: string) {
  return errorBody(
    null,
    INTERNAL_ERROR,
    `The access token could not be checked: ${reason}; try again shortly`,
    { reason: 'authorization_server_unavailable' },
  );
}

/** A JSON-RPC error object for a response written by hand (HTTP-level refusals). */
export function errorBody(id: unknown, code: number, message: string, data?: Record<string, unknown>) {
  return { jsonrpc: '2.0' as const, id: id ?? null, error: { code, message, ...(data ? { data } : {}) } };
}
