// tasks/cancel: a cancellation request for the caller's run (it cancels the activity in flight).
import { taskNotFound } from './errors.ts';
import type { TaskRequest } from './method-context.ts';
import { emptyAck } from './task-shapes.ts';

export async function tasksCancel({ taskId, caller, deps }: TaskRequest) {
  if (!(await deps.actions.cancel(taskId, caller))) throw taskNotFound(taskId);
  return emptyAck();
}
