// Counts and logs every tools/call and tasks/* request: one metric increment and one log line per
// request, carrying the task id the request is about (logging.ts binds it to the request's logger).
import { ProtocolError } from '@modelcontextprotocol/server';
import { tagTask } from '../http/logging.ts';
import { metrics, type TaskRequestOutcome, type ToolCallOutcome } from '../metrics.ts';
import { INVALID_PARAMS, isTaskNotFound, MISSING_REQUIRED_CLIENT_CAPABILITY } from './json-rpc-errors.ts';

interface AnswerLike {
  resultType?: unknown;
  taskId?: unknown;
  structuredContent?: unknown;
}

/** How a tools/call answer reads for the metrics: a task, a handle to poll, or a final result. */
export function toolCallOutcome(answer: unknown): ToolCallOutcome {
  const { resultType, structuredContent } = (answer ?? {}) as AnswerLike;
  if (resultType === 'task') return 'task';
  const status = (structuredContent as { status?: unknown } | undefined)?.status;
  return status === 'running' || status === 'input_required' ? 'start_poll' : 'inline';
}

/** The task or run a tools/call answer is about (its taskId or workflow_id). */
export function answerTaskId(answer: unknown): string | undefined {
  const { taskId, structuredContent } = (answer ?? {}) as AnswerLike;
  if (typeof taskId === 'string') return taskId;
  const id = (structuredContent as { workflow_id?: unknown } | undefined)?.workflow_id;
  return typeof id === 'string' ? id : undefined;
}

export function taskRequestOutcome(err: unknown): TaskRequestOutcome {
  if (!(err instanceof ProtocolError)) return 'error';
  if (err.code === MISSING_REQUIRED_CLIENT_CAPABILITY) return 'missing_capability';
  if (isTaskNotFound(err)) return 'not_found';
  if (err.code === INVALID_PARAMS) return 'invalid_params';
  return 'error';
}

function errorFields(err: unknown): Record<string, unknown> {
  const code = err instanceof ProtocolError ? err.code : undefined;
  return { error: { code, message: err instanceof Error ? err.message : String(err) } };
}

/** Runs one tools/call (`tool` is the catalog's name, or "unknown"), counting and logging it. */
export async function observeToolCall<T>(tool: string, call: () => Promise<T>): Promise<T> {
  const elapsed = metrics.stopwatch();
  try {
    const answer = await call();
    const outcome = toolCallOutcome(answer);
    metrics.toolCall(tool, outcome);
    tagTask(answerTaskId(answer))?.info({ tool, outcome, ms: Math.round(elapsed() * 1000) }, 'tools/call');
    return answer;
  } catch (err) {
    metrics.toolCall(tool, 'error');
    const internal = !(err instanceof ProtocolError) || err.code !== INVALID_PARAMS;
    const log = tagTask(undefined);
    const fields = { tool, outcome: 'error', ms: Math.round(elapsed() * 1000), ...errorFields(err) };
    if (internal) log?.warn(fields, 'tools/call failed');
    else log?.info(fields, 'tools/call refused');
    throw err;
  }
}

/** Runs one tasks/* request, counting and logging it. */
export async function observeTaskRequest<T>(
  method: string,
  taskId: unknown,
  call: () => Promise<T>,
): Promise<T> {
  const elapsed = metrics.stopwatch();
  const log = tagTask(typeof taskId === 'string' ? taskId : undefined);
  try {
    const answer = await call();
    metrics.taskRequest(method, 'ok');
    const status = (answer as { status?: unknown } | undefined)?.status;
    log?.info(
      { method, outcome: 'ok', ...(status ? { status } : {}), ms: Math.round(elapsed() * 1000) },
      method,
    );
    return answer;
  } catch (err) {
    const outcome = taskRequestOutcome(err);
    metrics.taskRequest(method, outcome);
    const fields = { method, outcome, ms: Math.round(elapsed() * 1000), ...errorFields(err) };
    if (outcome === 'error') log?.warn(fields, `${method} failed`);
    else log?.info(fields, `${method} refused`);
    throw err;
  }
}
