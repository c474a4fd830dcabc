// A run as the gateway names, records and reads it. Pure: no Temporal calls here (backend.ts makes
// them).
// - Its id: `<tool prefix>-` then a 128-bit body (random, or an idempotency key's HMAC) and a
//   64-bit owner tag, HMAC(server secret, principal, prefix, body). Whether an id is the caller's
//   is told without asking Temporal, so another caller's task and one that never existed are
//   refused alike, at once; the prefix names the tool.
// - What it carries: the memo (tool, arguments, principal, client) and the Markdown the Web UI shows.
// - What it is now: ExecutionState from a result or its error, and from describe's details.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type WorkflowExecutionDescription, WorkflowFailedError } from '@temporalio/client';
import {
  ApplicationFailure,
  CancelledFailure,
  defaultPayloadConverter,
  type Payload,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { TOOL_ERROR_TYPE, type ToolProgress } from '../../workflows/mcp-contract.ts';
import { GRPC, grpcCode, isDeadline } from './errors.ts';

// ---- ids -------------------------------------------------------------------------------------

const BODY_BYTES = 16;
const TAG_BYTES = 8;
/** base64url length of body + tag. */
const ENCODED_LENGTH = Math.ceil(((BODY_BYTES + TAG_BYTES) * 4) / 3);

function ownerTag(secret: Buffer, principal: string, prefix: string, body: Buffer): Buffer {
  const mac = createHmac('sha256', secret).update(JSON.stringify(['mcp-task-owner/v2', principal, prefix]));
  return mac.update(body).digest().subarray(0, TAG_BYTES);
}

/** The task id of `body` (16 bytes) for `principal`, under the tool's id prefix. */
export function ownedTaskId(secret: Buffer, principal: string, prefix: string, body: Buffer): string {
  if (body.length !== BODY_BYTES) throw new Error(`a task id body is ${BODY_BYTES} bytes`);
  const bytes = Buffer.concat([body, ownerTag(secret, principal, prefix, body)]);
  return `${prefix}-${bytes.toString('base64url')}`;
}

/** A fresh task id for `principal`: 128 random bits. */
export function newTaskId(secret: Buffer, principal: string, prefix: string): string {
  return ownedTaskId(secret, principal, prefix, randomBytes(BODY_BYTES));
}

/** The id prefix of a well-formed task id (it names the tool), or undefined. */
export function taskIdPrefix(taskId: string): string | undefined {
  const dash = taskId.length - ENCODED_LENGTH - 1;
  return dash > 0 && taskId[dash] === '-' ? taskId.slice(0, dash) : undefined;
}

/** Whether `taskId` is a well-formed id this server issued to `principal` (constant time in the tag). */
export function isOwnedBy(secret: Buffer, principal: string, taskId: string): boolean {
  const prefix = taskIdPrefix(taskId);
  if (prefix === undefined) return false;
  const encoded = taskId.slice(taskId.length - ENCODED_LENGTH);
  const bytes = Buffer.from(encoded, 'base64url');
  // Node's decoder skips characters outside the alphabet: only the exact encoding counts.
  if (bytes.length !== BODY_BYTES + TAG_BYTES || bytes.toString('base64url') !== encoded) return false;
  const body = bytes.subarray(0, BODY_BYTES);
  return timingSafeEqual(bytes.subarray(BODY_BYTES), ownerTag(secret, principal, prefix, body));
}

/**
 * The task id of an idempotent start: 128 bits of HMAC(secret, principal, tool, key) as its body,
 * owned like any other, so a retried start names the same workflow.
 */
export function keyedTaskId(
  secret: Buffer,
  principal: string,
  tool: { name: string; idPrefix: string },
  key: string,
): string {
  const mac = createHmac('sha256', secret).update(
    JSON.stringify(['mcp-task-id/v1', principal, tool.name, key]),
  );
  return ownedTaskId(secret, principal, tool.idPrefix, mac.digest().subarray(0, 16));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** The argument names whose values differ between the stored start and this one (sorted). */
export function differingArguments(
  stored: Record<string, unknown>,
  given: Record<string, unknown>,
): string[] {
  const names = new Set([...Object.keys(stored), ...Object.keys(given)]);
  return [...names]
    .filter((name) => JSON.stringify(canonical(stored[name])) !== JSON.stringify(canonical(given[name])))
    .sort();
}

// ---- what a run carries ------------------------------------------------------------------------

/** Which MCP client sent the request that started a run, shown in the Web UI. */
export interface RequestOrigin {
  /** The client's `clientInfo.name`, when the request carried it. */
  clientName?: string;
  clientVersion?: string;
  /** The protocol revision the request was sent under, when known. */
  protocolVersion?: string;
  /** The HTTP User-Agent, a hint for 2025-era clients that do not name themselves per request. */
  userAgent?: string;
}

/** What the gateway stores in a run's memo. */
export interface RunMemo {
  tool: string;
  /**
   * When the gateway started the run (ISO time): the task's createdAt, the same in the handle a
   * start answers with and in every later view, with no describe needed for the handle.
   */
  createdAt?: string;
  arguments: Record<string, unknown>;
  principal: string;
  /** The MCP client and protocol revision that started the run. */
  origin?: RequestOrigin;
  /** The W3C trace context of the start, when the gateway traced it: polls and pushes link to it. */
  trace?: RunTrace;
}

/** A W3C trace context as the memo keeps it. */
export interface RunTrace {
  traceparent?: string;
  tracestate?: string;
}

/** Temporal's limit on a run's Web UI summary, in bytes. */
export const SUMMARY_MAX_BYTES = 400;

/** The Web UI summary cut to Temporal's limit (a long principal must not make the start fail). */
export function runSummary(text: string): string {
  if (Buffer.byteLength(text) <= SUMMARY_MAX_BYTES) return text;
  let cut = text.slice(0, SUMMARY_MAX_BYTES - 3);
  while (Buffer.byteLength(`${cut}…`) > SUMMARY_MAX_BYTES) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Longest argument text the Web UI details show (Temporal caps the details at 20,000 bytes). */
export const DETAILS_ARGUMENTS_MAX_CHARS = 8_000;

/**
 * Caller-supplied text as Markdown inline code: backticks and line breaks cannot end the span or
 * start markup of their own, and the text is cut to a bounded length.
 */
function code(text: string, max = 200): string {
  const flat = text.replace(/[`\r\n]/g, ' ');
  return `\`${flat.length > max ? `${flat.slice(0, max)}…` : flat}\``;
}

/** Caller-supplied text as plain Markdown: no character that could start markup, bounded. */
function plain(text: string, max = 50): string {
  const flat = text.replace(/[`*_[\]<>#\\\r\n]/g, '');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A fenced block no content can close: its fence is longer than any run of backticks inside. */
function fenced(language: string, text: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${language}`, text, fence];
}

function clientLine(origin: RequestOrigin | undefined): string {
  if (origin?.clientName) {
    return `${code(origin.clientName)}${origin.clientVersion ? ` ${plain(origin.clientVersion)}` : ''}`;
  }
  const agent = origin?.userAgent ? ` (User-Agent ${code(origin.userAgent)})` : '';
  return `not named on this request${agent}: 2025-era clients name themselves only in \`initialize\``;
}

/** The Web UI's details of a run (Markdown): caller, MCP client, protocol revision, arguments. */
export function runDetails(run: Omit<RunMemo, 'createdAt'>): string {
  let args = JSON.stringify(run.arguments, null, 2);
  if (args.length > DETAILS_ARGUMENTS_MAX_CHARS) {
    args = `${args.slice(0, DETAILS_ARGUMENTS_MAX_CHARS)}\n… (${args.length - DETAILS_ARGUMENTS_MAX_CHARS} more characters)`;
  }
  return [
    `- **Caller:** ${code(run.principal)}`,
    `- **MCP client:** ${clientLine(run.origin)}`,
    `- **Protocol revision:** ${plain(run.origin?.protocolVersion ?? 'unknown')}`,
    `- **Tool:** ${code(run.tool)}`,
    '',
    '**Arguments:**',
    '',
    ...fenced('json', args),
  ].join('\n');
}

// ---- what a run is now ---------------------------------------------------------------------------

/** The progress query's answer: the contract's fields, and whatever else the workflow adds. */
export type ProgressAnswer = ToolProgress & Record<string, unknown>;

export type ExecutionState =
  /**
   * `progress` is absent when the tool has no progress query or no worker answered it (`note` then
   * says why); `heartbeat` is the latest heartbeat details of the activity in flight, if any.
   */
  | { status: 'running'; progress?: ProgressAnswer; heartbeat?: unknown; note?: string }
  | { status: 'completed'; result: unknown }
  /**
   * `toolError`: the workflow failed with an McpToolError: the tool answered, with an error, and
   * `message` is its message. Otherwise the run broke (failed, terminated, timed out) and `message`
   * says how, after the run's name: "was terminated: operator".
   */
  | { status: 'failed'; toolError: boolean; reason: string; message: string }
  | { status: 'cancelled' };

export type RunningState = Extract<ExecutionState, { status: 'running' }>;

/** What the gateway knows about one run at one moment: the input of every answer shape. */
export interface ExecutionView {
  workflowId: string;
  /** The catalog tool that started the run. */
  tool: string;
  createdAt: Date;
  lastUpdatedAt: Date;
  /** The tool arguments the run was started with (defaults applied). */
  arguments: Record<string, unknown>;
  state: ExecutionState;
  /** The start's trace context, when it was traced. */
  trace?: RunTrace;
}

export function completedState(result: unknown): ExecutionState {
  return { status: 'completed', result: result === undefined ? null : result };
}

function causes(err: Error | undefined): Error[] {
  const chain: Error[] = [];
  for (let e: unknown = err; e instanceof Error && chain.length < 20; e = (e as { cause?: unknown }).cause) {
    chain.push(e);
  }
  return chain;
}

function failed(toolError: boolean, reason: string, message: string): ExecutionState {
  return { status: 'failed', toolError, reason, message };
}

function suffix(message: string | undefined): string {
  return message && message !== 'Workflow execution terminated' ? `: ${message}` : '';
}

// ---- results too large for Temporal ---------------------------------------------------------------

/** The failure reason of a run whose result Temporal would not take. */
export const RESULT_TOO_LARGE = 'result_too_large';

/** The reason the gateway gives Temporal when it ends a run stuck on a result too large to complete. */
export const TOO_LARGE_TERMINATION = 'mcp gateway: the workflow result is larger than Temporal accepts';

/**
 * Workflow task failure causes that mean the completion (its result) was too large: the worker's
 * gRPC message over 4 MiB (36), payloads over the server's limit (37), the request over it (40).
 * A workflow task failing for one of these fails on every retry: the run never completes.
 */
export const TOO_LARGE_TASK_CAUSES: ReadonlySet<number> = new Set([36, 37, 40]);

/** What the client is told of a result too large for Temporal (after "The run "). */
export const RESULT_TOO_LARGE_MESSAGE =
  "failed: its result is larger than Temporal accepts (a workflow result may be at most 2 MB with Temporal's " +
  'default blob size limit, and a worker can send at most 4 MiB at once). Return a large output as an artifact ' +
  'reference instead: store the bytes from an activity and return the reference (docs/artifacts.md)';

/**
 * Whether a termination was for a result too large: the gateway's own (a run stuck on it), or the
 * history service's when a completion is over the blob size limit (it names no code, only this text).
 */
function terminatedForSize(message: string | undefined): boolean {
  return message === TOO_LARGE_TERMINATION || /Result exceeds size limit/i.test(message ?? '');
}

/**
 * The state a workflow ended in, from the error its result threw; undefined when the error is not a
 * workflow outcome (Temporal unreachable, our own abort), so the caller can treat it as an error.
 */
export function stateFromResultError(err: unknown): ExecutionState | undefined {
  if (!(err instanceof WorkflowFailedError)) return undefined;
  const chain = causes(err.cause);
  const first = chain[0];
  if (first instanceof CancelledFailure) return { status: 'cancelled' };
  if (first instanceof TerminatedFailure) {
    if (terminatedForSize(first.message)) return failed(false, RESULT_TOO_LARGE, RESULT_TOO_LARGE_MESSAGE);
    return failed(false, 'terminated', `was terminated${suffix(first.message)}`);
  }
  if (first instanceof TimeoutFailure) {
    return failed(false, 'timed_out', `timed out${suffix(first.message)}`);
  }
  // A failure of the contract's type, the workflow's own or an activity's it let through: the tool
  // answered with an error.
  const toolError = chain.find((e) => e instanceof ApplicationFailure && e.type === TOOL_ERROR_TYPE);
  if (toolError) return failed(true, TOOL_ERROR_TYPE, toolError.message);
  const root = chain.at(-1);
  return failed(false, 'failed', `failed: ${root?.message || err.message}`);
}

/** Why there is no progress to show: most often, no worker is polling the run's task queue. */
export function queryFailureNote(err: unknown, taskQueue: string, queryTimeoutMs: number): string {
  if (isDeadline(err) || grpcCode(err) === GRPC.FAILED_PRECONDITION) {
    return (
      `The run is in progress, but no worker is polling task queue "${taskQueue}" right now ` +
      `(no answer to the progress query within ${(queryTimeoutMs / 1000).toFixed(1)} s). ` +
      'The run is safe in Temporal and continues when a worker is back.'
    );
  }
  const cause = (err as { cause?: Error }).cause?.message;
  return `The run is in progress; progress is unavailable right now (${cause ?? (err as Error).message}).`;
}

/** The stored payload of the latest heartbeat of the activity in flight (encrypted with a codec). */
export function heartbeatPayload(description: WorkflowExecutionDescription): Payload | undefined {
  return (description.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0] ?? undefined) as
    | Payload
    | undefined;
}

/** The latest heartbeat details of the activity in flight, if any (`payload`: it decoded by the codec). */
export function latestHeartbeat(
  description: WorkflowExecutionDescription,
  payload: Payload | undefined = heartbeatPayload(description),
): unknown {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
}

function timestampMs(
  ts: { seconds?: unknown; nanos?: number | null } | null | undefined,
): number | undefined {
  if (!ts || ts.seconds === undefined || ts.seconds === null) return undefined;
  return Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** The latest thing that happened to the run: start, close, or an activity's last heartbeat. */
export function lastUpdate(description: WorkflowExecutionDescription): Date {
  const times = [description.startTime.getTime(), description.closeTime?.getTime()];
  for (const activity of description.raw.pendingActivities ?? []) {
    times.push(timestampMs(activity.lastHeartbeatTime), timestampMs(activity.lastStartedTime));
  }
  return new Date(Math.max(...times.filter((t): t is number => typeof t === 'number' && Number.isFinite(t))));
}
