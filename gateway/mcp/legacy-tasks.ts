// The task methods only the 2025-11-25 revision has (SEP-1686), on the same runs, ids and ownership
// as the Tasks extension (tasks/get and tasks/cancel serve both revisions: tasks.ts): tasks/result
// follows the run on its stream, its input asked there (legacy-task-stream.ts); tasks/list pages
// the caller's runs from visibility. A task still asking for input when the stream ends answers
// tasks/result with the start/poll answer that names its respond companion.
import { ProtocolError } from '@modelcontextprotocol/server';
import type { RunParts } from '../temporal/backend.ts';
import type { Catalog } from './catalog.ts';
import { INTERNAL_ERROR } from './errors.ts';
import { legacyTaskOutcome, listedTask, RELATED_TASK } from './legacy-task-shapes.ts';
import { followOnStream, resultStream } from './legacy-task-stream.ts';
import { type MethodCall, namedTask } from './method-context.ts';
import type { TaskTiming } from './poll-pacing.ts';
import { coversTask } from './rights.ts';
import { startPollAnswer } from './start-poll.ts';
import type { TaskSubscriptions } from './subscriptions-listen.ts';
import { detailedTask } from './task-shapes.ts';
import { type ReadParts, readTask, type TaskParams } from './tasks.ts';

const TASKS_PER_PAGE = 20;

/** What tasks/result takes: reading a run, the streams that follow tasks, and the shutdown signal. */
export type ResultParts = ReadParts & {
  timing: TaskTiming;
  subscriptions: TaskSubscriptions;
  stopping: AbortSignal;
};

/** tasks/result: the task followed on the request's stream until it ends. */
export function taskResult(parts: ResultParts) {
  return async (call: MethodCall<TaskParams>) => {
    const { taskId } = call.params;
    const stream = resultStream(call.server, call.ctx, parts.stopping);
    const read = await readTask(namedTask(call), call.caller, parts);
    const { view, tool } = await followOnStream(read, call.caller, parts, stream);
    const task = detailedTask(view, tool, parts.timing);
    const failure = (message: string, data: Record<string, unknown>) =>
      new ProtocolError(INTERNAL_ERROR, message, data);
    const ended = legacyTaskOutcome(task, failure);
    if (ended) return ended;
    if (task.status === 'input_required') {
      const answer = startPollAnswer(view, tool, parts.timing);
      return { ...answer, _meta: { ...answer._meta, [RELATED_TASK]: { taskId } } };
    }
    throw new ProtocolError(
      INTERNAL_ERROR,
      `Task ${taskId} is still working; call tasks/get until it ends, then tasks/result`,
      { reason: 'task_still_working', taskId, [RELATED_TASK]: { taskId } },
    );
  };
}

/** tasks/list: a page of the caller's runs. */
export function listTasks({
  listing,
  catalog,
  timing,
}: Pick<RunParts, 'listing'> & { catalog: Catalog; timing: TaskTiming }) {
  return async ({ params, caller }: MethodCall<{ cursor?: string }>) => {
    const page = await listing.all(caller, params.cursor, TASKS_PER_PAGE);
    // The tasks of a tool whose scopes the token lacks are left out, as tasks/get of them is refused.
    const covered = page.runs.filter((run) => coversTask(catalog, run.workflowId, caller.scopes));
    return {
      tasks: covered.map((run) => listedTask(run, timing)),
      ...(page.cursor ? { nextCursor: page.cursor } : {}),
    };
  };
}
