// Every MCP request counted and logged once: one metric increment, one log line carrying the task
// id the request is about (left on the exchange for the HTTP layer's last line), and the outcome on
// the request's span. Refusals (not found, bad params, a missing capability) log at info, failures at warn.
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
  toProtocolError,
} from './errors.ts';

/** The request's logger: Fastify's, as the HTTP layer hands it over. */
interface RequestLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  child(bindings: { taskId: string }): RequestLogger;
}

/**
 * What the HTTP layer hands over with one request besides the request itself, and what it reads
 * back once the answer is made: the task the answer is about (a tools/call learns it only then).
 */
export interface Exchange {
  log: RequestLogger;
  /** Settles once the answer has left the process (or the caller has gone). */
  answered: Promise<void>;
  taskId?: string;
}

const exchanges = new AsyncLocalStorage<Exchange>();

/** Serves a request with its exchange reachable from the SDK's handlers (they get no such context). */
export function inExchange<T>(exchange: Exchange, run: () => T): T {
  return exchanges.run(exchange, run);
}

/** The request's logger, bound to `taskId` (the first task id it learns; later ones are the same). */
function logFor(taskId: string | undefined): RequestLogger | undefined {
  const exchange = exchanges.getStore();
  if (!exchange) return undefined;
  if (taskId && exchange.taskId === undefined) {
    exchange.taskId = taskId.slice(0, 200);
    exchange.log = exchange.log.child({ taskId: exchange.taskId });
  }
  return exchange.log;
}

/**
 * Runs `done` once the current request's answer has gone out; at once outside a request. A
 * resources/read holds its share of the read budget until then: the answer's JSON and its buffer
 * hold the bytes several times over after the handler has returned.
 */
export function afterAnswer(done: () => void): void {
  const exchange = exchanges.getStore();
  if (exchange) void exchange.answered.then(done);
  else done();
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
 * Runs one tools/call (`tool` is the catalog's name, or "unknown"), counting and logging it; what
 * it throws leaves as the protocol error the client is answered with.
 */
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
  } catch (thrown) {
    const err = toProtocolError(thrown);
    toolCalls.inc({ tool, outcome: 'error' });
    if (tracing) annotateSpan({ 'mcp.outcome': 'error' });
    const internal = err.code !== INVALID_PARAMS;
    const log = logFor(undefined);
    const fields = { tool, outcome: 'error', ms: elapsedMs(), ...errorFields(err) };
    if (internal) log?.warn(fields, 'tools/call failed');
    else log?.info(fields, 'tools/call refused');
    throw err;
  }
}

/**
 * Runs one tasks/*, resources/* or subscriptions/listen request, counting and logging it; what it
 * throws leaves as the protocol error the client is answered with.
 */
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
  } catch (thrown) {
    const err = toProtocolError(thrown);
    const outcome = taskRequestOutcome(err);
    taskRequests.inc({ method, outcome });
    if (tracing) annotateSpan({ 'mcp.outcome': outcome });
    const fields = { method, outcome, ms: elapsedMs(), ...errorFields(err) };
    if (outcome === 'error') log?.warn(fields, `${method} failed`);
    else log?.info(fields, `${method} refused`);
    throw err;
  }
}
