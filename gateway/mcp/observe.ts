// Every MCP request counted and logged once: one metric increment, one log line carrying the task
// id the request is about (the HTTP layer binds it to the request's logger), and the outcome on the
// request's span. Refusals (not found, bad params, a missing capability) log at info, failures at warn.
import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError } from '@modelcontextprotocol/server';
import { type TaskRequestOutcome, type ToolCallOutcome, taskRequests, toolCalls } from '../shared/metrics.ts';
import { annotateSpan, tracing } from '../shared/tracing.ts';
import {
  INVALID_PARAMS,
  isResourceNotFound,
  isTaskNotFound,
  loggedMessage,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
} from './errors.ts';

interface LogLine {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * The request as the HTTP layer gives it: its logger, bound to a task id once that is known, and
 * where to leave what must wait until its answer has gone out.
 */
export interface RequestLog {
  bindTask(taskId: string | undefined): LogLine | undefined;
  /** Runs `done` once the answer has left the process (or the caller has gone). */
  onAnswered?(done: () => void): void;
}

const requestLogs = new AsyncLocalStorage<RequestLog>();

/** Serves a request with its log reachable, so its tools/call or tasks/* line carries the task id. */
export function withRequestLog<T>(log: RequestLog, run: () => T): T {
  return requestLogs.run(log, run);
}

const logFor = (taskId: string | undefined) => requestLogs.getStore()?.bindTask(taskId);

/**
 * Runs `done` once the current request's answer has gone out; at once outside a request. A
 * resources/read holds its share of the read budget until then: the answer's JSON and its buffer
 * hold the bytes several times over after the handler has returned.
 */
export function afterAnswer(done: () => void): void {
  const onAnswered = requestLogs.getStore()?.onAnswered;
  if (onAnswered) onAnswered(done);
  else done();
}

interface AnswerLike {
  resultType?: unknown;
  taskId?: unknown;
  structuredContent?: unknown;
}

/** How a tools/call answer reads for the metrics: a task, a handle to poll, or a final result. */
function toolCallOutcome(answer: unknown): ToolCallOutcome {
  const { resultType, structuredContent } = (answer ?? {}) as AnswerLike;
  if (resultType === 'task') return 'task';
  const status = (structuredContent as { status?: unknown } | undefined)?.status;
  return status === 'running' || status === 'input_required' ? 'start_poll' : 'inline';
}

/** The task or run a tools/call answer is about (its taskId or workflow_id). */
function answerTaskId(answer: unknown): string | undefined {
  const { taskId, structuredContent } = (answer ?? {}) as AnswerLike;
  if (typeof taskId === 'string') return taskId;
  const id = (structuredContent as { workflow_id?: unknown } | undefined)?.workflow_id;
  return typeof id === 'string' ? id : undefined;
}

/** The status a tools/call answer reports: a task's, or the start/poll JSON's. */
function answerStatus(answer: unknown): string | undefined {
  const { structuredContent, status } = (answer ?? {}) as AnswerLike & { status?: unknown };
  const value = (structuredContent as { status?: unknown } | undefined)?.status ?? status;
  return typeof value === 'string' ? value : undefined;
}

function taskRequestOutcome(err: unknown): TaskRequestOutcome {
  if (!(err instanceof ProtocolError)) return 'error';
  if (err.code === MISSING_REQUIRED_CLIENT_CAPABILITY) return 'missing_capability';
  if (isTaskNotFound(err) || isResourceNotFound(err)) return 'not_found';
  if (err.code === INVALID_PARAMS) return 'invalid_params';
  return 'error';
}

/** Starts a clock; the function it returns gives the whole milliseconds since. */
function stopwatch(): () => number {
  const started = performance.now();
  return () => Math.round(performance.now() - started);
}

function errorFields(err: unknown): Record<string, unknown> {
  const code = err instanceof ProtocolError ? err.code : undefined;
  return { error: { code, message: loggedMessage(err) } };
}

/** Runs one tools/call (`tool` is the catalog's name, or "unknown"), counting and logging it. */
export async function observeToolCall<T>(tool: string, call: () => Promise<T>): Promise<T> {
  const elapsedMs = stopwatch();
  try {
    const answer = await call();
    const outcome = toolCallOutcome(answer);
    toolCalls.inc({ tool, outcome });
    if (tracing)
      annotateSpan({
        'mcp.outcome': outcome,
        'mcp.task.id': answerTaskId(answer),
        'mcp.task.status': answerStatus(answer),
      });
    logFor(answerTaskId(answer))?.info({ tool, outcome, ms: elapsedMs() }, 'tools/call');
    return answer;
  } catch (err) {
    toolCalls.inc({ tool, outcome: 'error' });
    if (tracing) annotateSpan({ 'mcp.outcome': 'error' });
    const internal = !(err instanceof ProtocolError) || err.code !== INVALID_PARAMS;
    const log = logFor(undefined);
    const fields = { tool, outcome: 'error', ms: elapsedMs(), ...errorFields(err) };
    if (internal) log?.warn(fields, 'tools/call failed');
    else log?.info(fields, 'tools/call refused');
    throw err;
  }
}

/** Runs one tasks/* or subscriptions/listen request, counting and logging it. */
export async function observeTaskRequest<T>(
  method: string,
  taskId: unknown,
  call: () => Promise<T>,
): Promise<T> {
  const elapsedMs = stopwatch();
  const log = logFor(typeof taskId === 'string' ? taskId : undefined);
  try {
    const answer = await call();
    taskRequests.inc({ method, outcome: 'ok' });
    // A task's status ("working", ...); a subscription's answer is a stream, whose HTTP status is not one.
    const status = (answer as { status?: unknown } | undefined)?.status;
    if (tracing)
      annotateSpan({
        'mcp.outcome': 'ok',
        ...(typeof status === 'string' ? { 'mcp.task.status': status } : {}),
      });
    log?.info(
      {
        method,
        outcome: 'ok',
        ...(typeof status === 'string' ? { status } : {}),
        ms: elapsedMs(),
      },
      method,
    );
    return answer;
  } catch (err) {
    const outcome = taskRequestOutcome(err);
    taskRequests.inc({ method, outcome });
    if (tracing) annotateSpan({ 'mcp.outcome': outcome });
    const fields = { method, outcome, ms: elapsedMs(), ...errorFields(err) };
    if (outcome === 'error') log?.warn(fields, `${method} failed`);
    else log?.info(fields, `${method} refused`);
    throw err;
  }
}
