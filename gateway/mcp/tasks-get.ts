// tasks/get: the detailed task from one describe of the run (and, for a tool whose runs only answer
// the progress query, that query beside it).
import { taskNotFound } from './errors.ts';
import type { TaskRequest } from './method-context.ts';
import { type GetTaskResult, getTaskResult } from './task-shapes.ts';

export async function tasksGet({ taskId, caller, deps }: TaskRequest): Promise<GetTaskResult> {
  const { views, catalog, timing } = deps;
  // The id names its tool, so its progress query (if it needs one) goes out beside the describe.
  const view = await views.read(taskId, caller, catalog.toolOfTask(taskId)?.progress ?? {});
  if (!view) throw taskNotFound(taskId);
  return getTaskResult(view, catalog.toolOfRun(view.tool), timing);
}
