// Every JSON-RPC error the gateway answers with, in one place: the codes (the SDK's own constants
// where the spec defines them), the messages and data, and the bodies of the answers the HTTP
// layer writes by hand (refusals before the MCP server sees the request, push streams).
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { UndecryptablePayloadError } from '../../common/payload-codec.ts';
import { TASKS_EXTENSION } from '../shared/protocol.ts';
import {
  IdempotencyConflictError,
  InvalidCursorError,
  isRunNotFound,
  isTemporalUnavailable,
  NotStartedError,
  RunningTaskLimitError,
  StartRateLimitError,
  StartRefusedError,
  StartUnconfirmedError,
  TemporalUnreachableError,
  WaitLimitError,
} from '../temporal/errors.ts';
import { namesNoRun, type TaskName } from '../temporal/task-ids.ts';

const PARSE_ERROR = ProtocolErrorCode.ParseError;
const INVALID_REQUEST = ProtocolErrorCode.InvalidRequest;
export const INVALID_PARAMS = ProtocolErrorCode.InvalidParams;
export const INTERNAL_ERROR = ProtocolErrorCode.InternalError;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = ProtocolErrorCode.MissingRequiredClientCapability;
/** HeaderMismatch (SEP-2243): request headers missing or at odds with the body; the SDK exports no constant. */
export const HEADER_MISMATCH = -32020;
/** Implementation-defined server error (JSON-RPC reserves -32000..-32099): a limit was hit. */
const LIMIT_EXCEEDED = -32000;
/** Body of a 401 (no MCP-defined code exists for it). */
const UNAUTHORIZED = -32001;
/** Body of a 403 `insufficient_scope`: the token is good but lacks a scope the request needs. */
const FORBIDDEN = -32003;

const TASK_NOT_FOUND_MESSAGE = 'Failed to retrieve task: Task not found';

/** A JSON-RPC error object, as carried by a failed task or an error answer. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** A JSON-RPC error answer for a response written by hand. */
export function errorBody(id: unknown, code: number, message: string, data?: Record<string, unknown>) {
  return { jsonrpc: '2.0' as const, id: id ?? null, error: { code, message, ...(data ? { data } : {}) } };
}

export type ErrorBody = ReturnType<typeof errorBody>;

/** A ProtocolError as a JSON-RPC error answer. */
function protocolErrorBody(id: unknown, error: ProtocolError): ErrorBody {
  return errorBody(id, error.code, error.message, error.data as Record<string, unknown> | undefined);
}

/** What went wrong, as the HTTP response carrying its JSON-RPC error (429 for a limit, 500 internal, else 400). */
export function errorResponse(id: unknown, err: unknown): Response {
  const error = toProtocolError(err);
  return Response.json(protocolErrorBody(id, error), { status: httpStatusOf(error) });
}

/**
 * tasks/* on an id that is unknown, expired, or not the caller's: one answer for all three. An id
 * without a run part (`~`: an unconfirmed start, or a gateway before ids named their run) says why.
 */
export function taskNotFound(task?: TaskName): ProtocolError {
  const note = task !== undefined && namesNoRun(task) ? { note: NO_RUN_NOTE } : {};
  return new ProtocolError(INVALID_PARAMS, TASK_NOT_FOUND_MESSAGE, { reason: 'task_not_found', ...note });
}

/** Why an id without a run part is not found once its run no longer holds its slot. */
export const NO_RUN_NOTE =
  'this task id names its slot but not its run (a start Temporal did not confirm, or a gateway before task ids ' +
  'named their run), so it finds the run only while that run is running: the run has ended or never started';

export function isTaskNotFound(err: unknown): boolean {
  return (
    err instanceof ProtocolError &&
    (err.data as { reason?: unknown } | undefined)?.reason === 'task_not_found'
  );
}

/**
 * resources/read of an artifact that is unknown, expired, gone from the store, of a run that is not
 * the caller's, or of a run with no result yet: one answer for all, naming only the URI asked for.
 * The spec's resource-not-found: -32602 whose data is exactly `{ uri }` (2026-07-28; earlier
 * revisions' -32002 is what clients also accept, and the SDK maps it to this).
 */
export function artifactNotFound(uri: string): ProtocolError {
  return new ResourceNotFoundError(uri, 'Resource not found');
}

export function isResourceNotFound(err: unknown): boolean {
  return err instanceof ResourceNotFoundError;
}

/**
 * resources/read of a URI that is not of the gateway's artifact form: no resource has it, so it is
 * the spec's resource-not-found (data `{ uri }`), with a message saying which URIs exist.
 */
export function invalidArtifactUri(uri: string): ProtocolError {
  return new ResourceNotFoundError(
    uri,
    'Resource not found: this server serves only the artifact://<task id>/<artifact id> URIs its answers give',
  );
}

/** resources/read naming the caller's own run with an artifact id its result does not hold. */
export function forgedArtifactReference(): ProtocolError {
  return new ProtocolError(
    INVALID_PARAMS,
    "Refused: the run's result holds no artifact with this id; use the URI of a resource_link the run answered",
    { reason: 'forged_artifact_reference' },
  );
}

/** resources/read of an artifact larger than the gateway serves. */
export function artifactTooLarge(limitBytes: number): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `The artifact is larger than this gateway serves through resources/read (the limit is ${limitBytes} bytes, ` +
      'MCP_ARTIFACT_READ_MAX_BYTES)',
    { reason: 'artifact_too_large', limitBytes },
  );
}

/** The stored bytes are not those the reference describes (size or SHA-256): never served. */
export function artifactCorrupt(): ProtocolError {
  return new ProtocolError(
    INTERNAL_ERROR,
    "The artifact's stored bytes do not match the size and SHA-256 its reference gives, so they are not served",
    { reason: 'artifact_corrupt' },
  );
}

/** The store holds something at the artifact's place that is not a plain file of its own: never served. */
export function artifactUnreadable(): ProtocolError {
  return new ProtocolError(
    INTERNAL_ERROR,
    "The artifact's stored object is not a regular file of the store's own, so it is not served",
    { reason: 'artifact_unreadable' },
  );
}

const BUSY_LIMITS = {
  reads: 'reads at once on this gateway (MCP_ARTIFACT_READS_MAX)',
  principal: 'reads at once by one principal (MCP_ARTIFACT_READS_PER_PRINCIPAL)',
  bytes: 'artifact bytes in flight on this gateway (MCP_ARTIFACT_READ_BYTES_IN_FLIGHT)',
} as const;

/** resources/read or resources/list past a cap of the read budget: refused, never queued. */
export function artifactReadsBusy(refusal: {
  limit: keyof typeof BUSY_LIMITS;
  retryAfterMs: number;
}): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `Too many artifact reads in progress: the limit of ${BUSY_LIMITS[refusal.limit]} is reached; ` +
      `try again in ${refusal.retryAfterMs} ms`,
    { reason: 'artifact_reads_busy', limit: refusal.limit, retryAfterMs: refusal.retryAfterMs },
  );
}

/** tasks/* (or a task subscription) from a request that did not declare the Tasks extension. */
export function missingTasksCapability(): ProtocolError {
  return new ProtocolError(MISSING_REQUIRED_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** A tool that needs client capabilities (sampling, elicitation, roots) the request did not declare. */
export function missingClientCapabilities(names: string[]): ProtocolError {
  return new ProtocolError(MISSING_REQUIRED_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: Object.fromEntries(names.map((name) => [name, {}])),
  });
}

export function invalidParams(message: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, message);
}

/** A keyed start whose key was used before with other arguments. */
function idempotencyConflict({ key, tool, fields }: IdempotencyConflictError): ProtocolError {
  return invalidParams(
    `Invalid arguments for tool ${tool}: idempotency_key conflict: the key "${key}" was already used for a ` +
      `${tool} call with different arguments (${fields.join(', ')}); use a new idempotency_key for a new request, ` +
      'or repeat the original arguments to get the original task',
  );
}

/** A start refused because the principal already has `limit` running tasks. */
function runningTaskLimit({ principal, running, limit }: RunningTaskLimitError): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `Too many running tasks: "${principal}" has ${running} running (the limit is ${limit}). ` +
      'Wait for one to finish or cancel one, then start again.',
    { reason: 'running_task_limit', running, limit },
  );
}

/** A start past the principal's starts per second: refused before anything was sent. */
function startRateLimit({ perSecond, retryAfterMs, gateways }: StartRateLimitError): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `Too many starts: this caller may start at most ${perSecond} runs a second (MCP_MAX_STARTS_PER_SECOND)` +
      `${sharedBy(gateways)}; nothing was started, so calling again in ${retryAfterMs} ms is safe`,
    {
      reason: 'start_rate_limit',
      setting: 'MCP_MAX_STARTS_PER_SECOND',
      limit: perSecond,
      retryAfterMs,
      ...(gateways > 1 ? { gateways } : {}),
    },
  );
}

/** How a per-principal bound is shared when several gateways serve (none said for one). */
function sharedBy(gateways: number): string {
  return gateways > 1 ? `, shared by the ${gateways} gateways serving now, each admitting its share` : '';
}

/** A call that would wait, past the principal's concurrent waits: refused before anything was done. */
function waitLimit({ limit, gateways }: WaitLimitError): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `Too many waiting calls: this caller may have ${limit} calls waiting on runs at once (MCP_MAX_WAITS_PER_PRINCIPAL)` +
      `${sharedBy(gateways)}; nothing was done, so call again once one has answered, or poll with tasks/get`,
    {
      reason: 'wait_limit',
      setting: 'MCP_MAX_WAITS_PER_PRINCIPAL',
      limit,
      ...(gateways > 1 ? { gateways } : {}),
    },
  );
}

/** Too many task streams (push subscriptions and tasks/result streams) open on this gateway. */
export function subscriptionLimit(limit: number): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `Too many task streams (subscriptions/listen and tasks/result) open on this gateway (the limit is ${limit}, ` +
      'MCP_LISTEN_MAX_STREAMS); poll with tasks/get or try again later',
    { reason: 'subscription_limit' },
  );
}

/** Too many task streams open for one principal: this gateway's share of the fleet's bound is held. */
export function principalSubscriptionLimit(limit: number, gateways: number): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `Too many task streams (subscriptions/listen and tasks/result) open for this caller (the limit is ${limit}, ` +
      `MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL${sharedBy(gateways)}); watch several tasks on one stream, or poll with tasks/get`,
    { reason: 'principal_subscription_limit' },
  );
}

/** The last frame of a task stream whose client stopped reading it. */
export function slowSubscriber(unreadFrames: number): ProtocolError {
  return new ProtocolError(
    LIMIT_EXCEEDED,
    `Task subscription closed: the client left more than ${unreadFrames} notifications unread; ` +
      'listen again, reading the stream as it comes',
    { reason: 'slow_subscriber' },
  );
}

/**
 * Any error thrown while serving a request → the ProtocolError the client receives. Errors that are
 * already JSON-RPC errors pass through; Temporal's "not found" is the unknown-task error.
 */
export function toProtocolError(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (err instanceof IdempotencyConflictError) return idempotencyConflict(err);
  if (err instanceof RunningTaskLimitError) return runningTaskLimit(err);
  if (err instanceof StartRateLimitError) return startRateLimit(err);
  if (err instanceof WaitLimitError) return waitLimit(err);
  if (err instanceof InvalidCursorError)
    return invalidParams('Invalid cursor: pass the nextCursor of the page before, as given');
  if (err instanceof StartRefusedError) {
    return withCause(
      new ProtocolError(
        INTERNAL_ERROR,
        'Temporal refused to start the run, so nothing was started; the gateway log says why',
        { reason: 'start_refused' },
      ),
      err,
    );
  }
  if (err instanceof NotStartedError) return notStarted(err.workflowId, err);
  if (err instanceof StartUnconfirmedError) {
    // Refused before it was sent, Temporal being known down: it cannot exist.
    const cause = err.cause;
    if (cause instanceof TemporalUnreachableError && !cause.sent) return notStarted(err.workflowId, err);
    return withCause(
      new ProtocolError(
        INTERNAL_ERROR,
        `Temporal did not confirm the start in time, and the run may exist: follow workflow_id "${err.workflowId}" ` +
          "(tasks/get with it as taskId, or the tool's result companion) before starting again",
        { reason: 'start_unconfirmed', workflowId: err.workflowId },
      ),
      err,
    );
  }
  if (err instanceof UndecryptablePayloadError) return payloadUndecryptable(err);
  if (isRunNotFound(err)) return taskNotFound();
  if (isTemporalUnavailable(err)) {
    return new ProtocolError(
      INTERNAL_ERROR,
      'Temporal is unreachable or did not answer in time; try again shortly',
      { reason: 'temporal_unavailable' },
    );
  }
  // The message of an unforeseen error may say anything (addresses, internals): it goes to the log.
  return withCause(new ProtocolError(INTERNAL_ERROR, 'Internal error', { reason: 'internal' }), err);
}

/** Temporal did not take the start of `workflowId`: nothing started, so calling again is safe. */
function notStarted(workflowId: string, err: unknown): ProtocolError {
  return withCause(
    new ProtocolError(
      INTERNAL_ERROR,
      `Temporal is unreachable or did not answer in time, before the run "${workflowId}" was started: ` +
        'nothing was started, so calling again is safe; try again shortly',
      { reason: 'temporal_unavailable', started: false, workflowId },
    ),
    err,
  );
}

/**
 * A payload of the task (its result, memo or progress) that this gateway's codec keys cannot
 * decrypt: the key id it names is unknown here (a key not yet, or no longer, configured), or the
 * ciphertext fails authentication. Never shown as plaintext, never guessed around.
 */
function payloadUndecryptable(err: UndecryptablePayloadError): ProtocolError {
  const why =
    err.reason === 'unknown_key'
      ? `it is encrypted with key id "${err.keyId}", which this gateway does not hold (MCP_CODEC_KEYS)`
      : err.reason === 'missing_key_id'
        ? 'it is marked encrypted but names no key id'
        : `it fails authentication under key id "${err.keyId}" (tampered with, or a different key under that id)`;
  return new ProtocolError(INTERNAL_ERROR, `A payload of this task cannot be decrypted: ${why}`, {
    reason: 'payload_undecryptable',
    keyId: err.keyId,
    cause: err.reason,
  });
}

/** The error a client is told, carrying the one it is not (for the request's log line). */
function withCause(error: ProtocolError, cause: unknown): ProtocolError {
  return Object.assign(error, { cause });
}

/** What the log says of an error: its message, and that of the error behind it, if any. */
export function loggedMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return cause === undefined
    ? message
    : `${message}: ${cause instanceof Error ? cause.message : String(cause)}`;
}

/** The HTTP status of a JSON-RPC error the gateway writes itself (the SDK's choice for the same codes). */
function httpStatusOf(error: ProtocolError): number {
  if (error.code === LIMIT_EXCEEDED) return 429;
  if (error.code === INTERNAL_ERROR) return 500;
  return 400;
}

// ---- answers written by the HTTP layer, before the MCP server sees the request ---------------

/** 401 body. */
export function unauthorized(description: string): ErrorBody {
  return errorBody(null, UNAUTHORIZED, `Unauthorized: ${description}`);
}

/** 403 `insufficient_scope` body, naming every scope the request needs. */
export function insufficientScope(id: unknown, description: string, scopes: readonly string[]): ErrorBody {
  return errorBody(id, FORBIDDEN, `Forbidden: ${description} (needs: ${scopes.join(' ')})`, {
    reason: 'insufficient_scope',
    requiredScopes: [...scopes],
  });
}

/**
 * 403 body: nobody signs in to this gateway, so it serves callers on its own machine only, and
 * `peer` (the socket's address) is not one of them.
 */
export function remotePeerRefused(peer: string): ErrorBody {
  return errorBody(
    null,
    FORBIDDEN,
    `Forbidden: this gateway authenticates nobody, so it serves callers on its own machine only ` +
      `(a loopback peer), and ${peer.slice(0, 100)} is not one. To serve other machines, configure ` +
      'authentication: MCP_AUTH_TOKENS (or MCP_AUTH_TOKENS_FILE), MCP_OAUTH_ISSUER and ' +
      "MCP_OAUTH_AUDIENCE, or the plugin's authenticate option",
    { reason: 'remote_peer_unauthenticated' },
  );
}

/** HTTP 503 body: the token could not be checked because the authorization server did not answer. */
export function authorizationServerUnavailable(reason: string): ErrorBody {
  return errorBody(
    null,
    INTERNAL_ERROR,
    `The access token could not be checked: ${reason}; try again shortly`,
    { reason: 'authorization_server_unavailable' },
  );
}

/** 413 body. */
export function bodyTooLarge(limitBytes: number): ErrorBody {
  return errorBody(null, INVALID_REQUEST, `Request body too large: the limit is ${limitBytes} bytes`);
}

/** 400 body for a body that is not JSON. */
export function parseError(reason: string): ErrorBody {
  return errorBody(null, PARSE_ERROR, `Parse error: ${reason}`);
}

/** Any other refusal of the HTTP request itself (wrong content type, …). */
export function invalidRequest(reason: string): ErrorBody {
  return errorBody(null, INVALID_REQUEST, reason);
}

/** 429 body: a poll sooner than the limiter allows. */
export function pollRateLimited(
  id: unknown,
  taskId: string,
  minIntervalMs: number,
  waitMs: number,
): ErrorBody {
  return errorBody(
    id,
    LIMIT_EXCEEDED,
    `Polling too fast: poll task "${taskId}" at most every ${minIntervalMs} ms ` +
      `(try again in ${waitMs} ms; pollIntervalMs / poll_after_seconds give the pace)`,
    { reason: 'poll_rate_limited', retryAfterMs: waitMs },
  );
}

/** 500 body: the answer could not be made. */
export function internalError(id: unknown): ErrorBody {
  return errorBody(id, INTERNAL_ERROR, 'Internal error');
}

// ---- the codec server (/codec/encode, /codec/decode) ----------------------------------------------

/** What the codec server answers when it refuses: plain JSON (the Web UI shows `message`). */
export interface CodecErrorBody {
  error: { reason: string; message: string; keyId?: string };
}

function codecError(reason: string, message: string, extra: { keyId?: string } = {}): CodecErrorBody {
  return { error: { reason, message, ...extra } };
}

/** 400: a payload the codec keys cannot decrypt, naming its key id. */
export function codecUndecryptable(err: UndecryptablePayloadError): CodecErrorBody {
  return codecError('payload_undecryptable', `Cannot decode: ${err.message}`, { keyId: err.keyId });
}

/** 400: a body that is not `{payloads: [...]}` with base64 fields. */
export function codecBadRequest(reason: string): CodecErrorBody {
  return codecError('bad_request', `Bad codec request: ${reason}`);
}

/** 400: X-Namespace names a namespace the keys are not for. */
export function codecNamespaceMismatch(asked: string, served: string): CodecErrorBody {
  return codecError(
    'namespace_mismatch',
    `This codec server decodes namespace "${served}", not "${asked.slice(0, 200)}"`,
  );
}

/** 403: a browser Origin not in MCP_CODEC_CORS_ORIGINS. */
export function codecOriginRefused(origin: string): CodecErrorBody {
  return codecError(
    'origin_refused',
    `Origin ${origin.slice(0, 200)} may not use this codec server (MCP_CODEC_CORS_ORIGINS)`,
  );
}

/** 403: an authenticated principal not in MCP_CODEC_PRINCIPALS. */
export function codecPrincipalRefused(principal: string): CodecErrorBody {
  return codecError(
    'principal_refused',
    `Principal "${principal}" may not use the codec server (MCP_CODEC_PRINCIPALS)`,
  );
}
