// The tasks of the 2025-11-25 revision (SEP-1686), served to that revision's clients on the same
// runs, ids and ownership as the Tasks extension: tasks/get (one describe), tasks/result (follows
// the run on its stream, its input asked there: legacy-task-stream.ts), tasks/list (the caller's
// runs from visibility, paged) and tasks/cancel. A task still asking for input when the stream ends
// answers tasks/result with the start/poll answer that names its respond companion.
import { ProtocolError, type Server } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { Caller } from '../shared/caller.ts';
import { type ParsedTaskIds, type TaskName, taskIdText } from '../temporal/task-ids.ts';
import { INTERNAL_ERROR, invalidParams, taskNotFound } from './errors.ts';
import { legacyTask, legacyTaskOutcome, listedTask, RELATED_TASK } from './legacy-task-shapes.ts';
import { followOnStream, type ResultStream, resultStream } from './legacy-task-stream.ts';
import type { McpDeps } from './method-context.ts';
import { METHODS } from './methods.ts';
import { observeTaskRequest } from './observe.ts';
import { coversTask } from './rights.ts';
import { startPollAnswer } from './start-poll.ts';
import type { TaskSubscriptions } from './subscriptions-listen.ts';
import { detailedTask } from './task-shapes.ts';
import { describeIssues } from './tool-definition.ts';

const taskParams = z.looseObject({ taskId: z.string() });
const listParams = z.looseObject({ cursor: z.string().optional() });
const TASKS_PER_PAGE = 20;
/** How long tasks/cancel waits for the run to end, so its answer can say `cancelled`. */
const CANCEL_SETTLE_MS = 2_000;

/** What the revision's task methods use: the gateway's parts, and the streams that follow tasks. */
type LegacyDeps = McpDeps & { subscriptions: TaskSubscriptions };

/** One request of the revision's task methods: its checked params and who asks. */
interface LegacyRequest {
  params: Record<string, unknown>;
  caller: Caller;
  /** A task id of the params as the HTTP layer parsed it (methods.ts), so it is not parsed again. */
  named: ParsedTaskIds;
}

type Handle = (
  request: LegacyRequest,
  deps: LegacyDeps,
  /** The request's stream (made when asked: only tasks/result uses it). */
  stream: () => ResultStream,
) => Promise<object>;

async function viewOf(task: TaskName, caller: Caller, deps: McpDeps) {
  const { views, catalog } = deps;
  const view = await views.read(task, caller, catalog.toolOfTask(task)?.progress ?? {});
  if (!view) throw taskNotFound(taskIdText(task));
  return { view, tool: catalog.toolOfRun(view.tool) };
}

const get: Handle = async ({ params, caller, named }, deps) => {
  const { view, tool } = await viewOf(named(String(params.taskId)), caller, deps);
  return legacyTask(view, tool, deps.timing);
};

const result: Handle = async ({ params, caller, named }, deps, stream) => {
  const taskId = String(params.taskId);
  const { view, tool } = await followOnStream(
    await viewOf(named(taskId), caller, deps),
    caller,
    deps,
    stream(),
  );
  const task = detailedTask(view, tool, deps.timing);
  const failure = (message: string, data: Record<string, unknown>) =>
    new ProtocolError(INTERNAL_ERROR, message, data);
  const ended = legacyTaskOutcome(task, failure);
  if (ended) return ended;
  if (task.status === 'input_required') {
    const answer = startPollAnswer(view, tool, deps.timing);
    return { ...answer, _meta: { ...answer._meta, [RELATED_TASK]: { taskId } } };
  }
  throw new ProtocolError(
    INTERNAL_ERROR,
    `Task ${taskId} is still working; call tasks/get until it ends, then tasks/result`,
    { reason: 'task_still_working', taskId, [RELATED_TASK]: { taskId } },
  );
};

const list: Handle = async ({ params, caller }, deps) => {
  const cursor = typeof params.cursor === 'string' ? params.cursor : undefined;
  const page = await deps.listing.all(caller, cursor, TASKS_PER_PAGE);
  // The tasks of a tool whose scopes the token lacks are left out, as tasks/get of them is refused.
  const covered = page.runs.filter((run) => coversTask(deps.catalog, run.workflowId, caller.scopes));
  return {
    tasks: covered.map((run) => listedTask(run, deps.timing)),
    ...(page.cursor ? { nextCursor: page.cursor } : {}),
  };
};

// The settle is one of the caller's waits: past them the cancel is refused before it is sent (wait_limit).
const cancel: Handle = (request, deps, stream) =>
  deps.waits.holding(request.caller.principal, () => cancelSettled(request, deps, stream));

const cancelSettled: Handle = async ({ params, caller, named }, deps) => {
  const taskId = String(params.taskId);
  const task = named(taskId);
  const run = await deps.actions.cancel(task, caller);
  if (!run) throw taskNotFound(taskId);
  await deps.waits.forResult(run, CANCEL_SETTLE_MS);
  const { view, tool } = await viewOf(task, caller, deps);
  return legacyTask(view, tool, deps.timing);
};

/** Each task method of the revision (declared in methods.ts): its params and its handler. */
const HANDLERS: Record<string, [z.ZodType<Record<string, unknown>>, Handle]> = {
  'tasks/get': [taskParams, get],
  'tasks/result': [taskParams, result],
  'tasks/list': [listParams, list],
  'tasks/cancel': [taskParams, cancel],
};

/** Serves the revision's task methods on a server made for a 2025-era request. */
export function serveLegacyTasks(
  server: Server,
  asking: Omit<LegacyRequest, 'params'>,
  deps: LegacyDeps,
  stopping: AbortSignal,
): void {
  for (const [method, declaration] of Object.entries(METHODS)) {
    if (!method.startsWith('tasks/') || !declaration.eras.includes('legacy')) continue;
    const served = HANDLERS[method];
    if (!served) throw new Error(`${method} is declared for 2025-11-25 clients without a handler`);
    const [schema, handle] = served;
    server.setRequestHandler(method, { params: z.looseObject({}) }, (raw, ctx) => {
      const taskId = typeof raw.taskId === 'string' ? raw.taskId : undefined;
      return observeTaskRequest(method, taskId, async () => {
        const parsed = schema.safeParse(raw);
        if (!parsed.success) throw invalidParams(`Invalid params: ${describeIssues(parsed.error)}`);
        const request = { ...asking, params: parsed.data };
        return (await handle(request, deps, () => resultStream(server, ctx, stopping))) as never;
      });
    });
  }
}
