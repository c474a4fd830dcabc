// tasks/get: the detailed task from one describe of the run (and its progress query, beside it).
import { taskNotFound } from './errors.ts';
import type { TaskRequest } from './method-context.ts';
import { type GetTaskResult, getTaskResult } from './task-shapes.ts';

export async function tasksGet({ taskId, caller, deps }: TaskRequest): Promise<GetTaskResult> {
  const { backend, catalog, timing } = deps;
  // The id names its tool, so the progress query goes out beside the describe.
  const progressQuery = catalog.toolOfTask(taskId)?.progressQuery;
  const view = await backend.views.of(taskId, caller, { progressQuery });
  if (!view) throw taskNotFound();
  return getTaskResult(view, catalog.toolOfRun(view.tool), timing);
}
