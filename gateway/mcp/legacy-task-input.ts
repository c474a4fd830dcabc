// Input for a 2025-11-25 task the revision's own way: the requests of a task asking for input go out
// on its tasks/result stream as requests to the client, each with an id that names the task and the
// request's key. The client's answer, a JSON-RPC response POSTed on its own, may then reach any
// replica of this stateless gateway: it goes to the run on the tool's input signal, for the run's
// owner only (another principal's answer changes nothing), as tasks/update's answers do.
import { randomBytes } from 'node:crypto';
import type { RunParts } from '../temporal/backend.ts';
import { WaitLimitError } from '../temporal/errors.ts';
import type { Catalog } from './catalog.ts';
import { errorResponse } from './errors.ts';
import { boundedResponses, inputResponsesSchema } from './input-rounds.ts';
import type { MethodCall } from './method-context.ts';
import { observeTaskRequest, type RequestLogger } from './observe.ts';

const ID_PREFIX = 'task-input.';

/** What an answer's log line and metric are named (it has no method of its own). */
export const INPUT_ANSWER_LOG = 'tasks/input-response';

/** The id of the request asking `key` of task `taskId`: the two, readable, and a random tail. */
export function inputRequestId(taskId: string, key: string): string {
  const named = Buffer.from(JSON.stringify([taskId, key])).toString('base64url');
  return `${ID_PREFIX}${named}.${randomBytes(6).toString('base64url')}`;
}

/**
 * Streams told when the client answers one of their requests with an error (it cannot answer it),
 * by request id: the stream then ends at once with the respond companion named. On this replica
 * only; a stream elsewhere waits out its bound.
 */
const refusalListeners = new Map<string, () => void>();

/** Calls `listener` if the client answers request `id` with an error; returns the unsubscribe. */
export function whenRefused(id: string, listener: () => void): () => void {
  refusalListeners.set(id, listener);
  return () => refusalListeners.delete(id);
}

/** A client's answer to one of those requests: its result, or none when it answered an error. */
export interface TaskInputAnswer {
  id: string;
  taskId: string;
  key: string;
  response?: unknown;
}

/** The body as an answer to one of those requests; undefined for any other body. */
export function taskInputAnswer(body: unknown): TaskInputAnswer | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { id, method, result, error } = body as Record<string, unknown>;
  if (method !== undefined || typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return undefined;
  if (result === undefined && error === undefined) return undefined;
  try {
    const named = JSON.parse(
      Buffer.from(id.slice(ID_PREFIX.length).split('.')[0] ?? '', 'base64url').toString(),
    );
    const [taskId, key] = Array.isArray(named) ? named : [];
    if (typeof taskId !== 'string' || typeof key !== 'string') return undefined;
    return { id, taskId, key, ...(error === undefined ? { response: result } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Hands the answer to its run: 202 whether or not the caller owns the run (an answer tells nothing
 * and changes nothing there), 400 for an answer that is no answer, 503 when Temporal did not take it
 * (the client may send it again). The send waits until the run took it, one of the caller's waits:
 * past MCP_MAX_WAITS_PER_PRINCIPAL it is refused before it is sent, as a call is (429, wait_limit).
 */
export function deliverTaskInput(
  answer: TaskInputAnswer,
  { caller, parsed, log }: Pick<MethodCall, 'caller' | 'parsed'> & { log: RequestLogger },
  deps: Pick<RunParts, 'views' | 'actions' | 'waits'> & { catalog: Catalog },
): Promise<Response> {
  return observeTaskRequest(log, INPUT_ANSWER_LOG, async () => {
    // The id the HTTP layer parsed (methods.ts): a malformed one names no run of the caller's.
    const task = parsed(answer.taskId);
    if (!task) return accepted();
    // The client cannot answer (an error response): the task goes on asking, through its companion.
    if (answer.response === undefined) {
      // Only the principal asked may end its stream: the request id names the task, owner tag and all.
      if (deps.views.owns(task, caller)) refusalListeners.get(answer.id)?.();
      return accepted();
    }
    const responses = answerOf(answer);
    if (!responses) return Response.json({ error: 'not an answer to an input request' }, { status: 400 });
    const tool = deps.catalog.toolOfTask(task);
    if (!tool?.inputSignal) return accepted();
    const input = { signalName: tool.inputSignal, responses, ...tool.progress };
    try {
      await deps.waits.holding(caller.principal, () => deps.actions.sendInput(task, caller, input));
    } catch (err) {
      if (err instanceof WaitLimitError) throw err;
      return Response.json({ error: 'the answer could not be delivered; send it again' }, { status: 503 });
    }
    return accepted();
  }).catch((err) => errorResponse(answer.id, err));
}

/** The answer as the input signal carries it, when it is one (an object of at most 16 KiB). */
function answerOf({ key, response }: TaskInputAnswer) {
  const parsed = inputResponsesSchema.safeParse({ [key]: response });
  if (!parsed.success) return undefined;
  try {
    return boundedResponses(parsed.data);
  } catch {
    return undefined;
  }
}

function accepted(): Response {
  return new Response(null, { status: 202 });
}
