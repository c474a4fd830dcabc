// Every MCP request counted and logged once: one metric increment, one log line on the request's
// logger (the HTTP layer bound it to the task the body names; a tools/call learns its task from its
// answer, returned for the HTTP layer's last line), and the outcome on the request's span. Refusals (not found, bad params, a missing capability) log at info, failures at warn.
import { ProtocolError } from '@modelcontextprotocol/server';
import { type TaskRequestOutcome, type ToolCallOutcome, taskRequests, toolCalls } from '../shared/metrics.ts';
import { annotateSpan, tracing } from '../shared/tracing.ts';
import {
  INVALID_PARAMS,
  isResourceNotFound,
  isTaskNotFound,
  loggedMessage,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  toProtocolError,
} from './errors.ts';

/** The request's logger: Fastify's, as the HTTP layer hands it over, bound to the task its body names. */
export interface RequestLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  child(bindings: { taskId: string }): RequestLogger;
}

interface AnswerLike {
  resultType?: unknown;
  taskId?: unknown;
  structuredContent?: unknown;
}

/**
 * How a tools/call answer reads for the metrics: a task, input the run asks of the caller (a
 * 2026-07-28 input-required result), a handle to poll, or a final result.
 */
function toolCallOutcome(answer: unknown): ToolCallOutcome {
  const { resultType, structuredContent } = (answer ?? {}) as AnswerLike;
  if (resultType === 'task' || resultType === 'input_required') return resultType;
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

/**
 * Runs one tools/call (`tool` is the catalog's name, or "unknown"), counting and logging it (`bound`:
 * its log is bound to the task its body names); what it throws leaves as the protocol error the
 * client is answered with. Gives the answer, and the task it names when the log was not bound.
 */
export async function observeToolCall<T>(
  { log, bound }: { log: RequestLogger; bound: boolean },
  tool: string,
  call: () => Promise<T>,
): Promise<{ answer: T; taskId?: string }> {
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
    // The task the answer names, on its line unless the log names the call's task already.
    const taskId = bound ? undefined : answerTaskId(answer)?.slice(0, 200);
    (taskId ? log.child({ taskId }) : log).info({ tool, outcome, ms: elapsedMs() }, 'tools/call');
    return { answer, ...(taskId ? { taskId } : {}) };
  } catch (thrown) {
    const err = toProtocolError(thrown);
    toolCalls.inc({ tool, outcome: 'error' });
    if (tracing) annotateSpan({ 'mcp.outcome': 'error' });
    const internal = err.code !== INVALID_PARAMS;
    const fields = { tool, outcome: 'error', ms: elapsedMs(), ...errorFields(err) };
    if (internal) log.warn(fields, 'tools/call failed');
    else log.info(fields, 'tools/call refused');
    throw err;
  }
}

/**
 * Runs one tasks/*, resources/* or subscriptions/listen request, counting and logging it; what it
 * throws leaves as the protocol error the client is answered with.
 */
export async function observeTaskRequest<T>(
  log: RequestLogger,
  method: string,
  call: () => Promise<T>,
): Promise<T> {
  const elapsedMs = stopwatch();
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
    log.info(
      {
        method,
        outcome: 'ok',
        ...(typeof status === 'string' ? { status } : {}),
        ms: elapsedMs(),
      },
      method,
    );
    return answer;
  } catch (thrown) {
    const err = toProtocolError(thrown);
    const outcome = taskRequestOutcome(err);
    taskRequests.inc({ method, outcome });
    if (tracing) annotateSpan({ 'mcp.outcome': outcome });
    const fields = { method, outcome, ms: elapsedMs(), ...errorFields(err) };
    if (outcome === 'error') log.warn(fields, `${method} failed`);
    else log.info(fields, `${method} refused`);
    throw err;
  }
}
