// A task of the Tasks extension: tasks/get, tasks/update, tasks/cancel.
import type { InputRequest, InputResponse } from '../workflows/mcp-contract.ts';
import type { Rpc } from './rpc.ts';
import type { TaskPort, TaskView, ViewStatus } from './task-view.ts';

export function tasksPort(rpc: Rpc, taskId: string): TaskPort {
  return {
    taskId,
    pushable: true,
    async get() {
      return viewOfTask(await rpc('tasks/get', { taskId }));
    },
    async answer(inputResponses: Record<string, InputResponse>) {
      await rpc('tasks/update', { taskId, inputResponses });
    },
    async cancel() {
      await rpc('tasks/cancel', { taskId });
    },
  };
}

export function viewOfTask(task: Record<string, unknown>): TaskView {
  const error = task.error as { message?: string } | undefined;
  return {
    status: task.status as ViewStatus,
    message: task.statusMessage as string | undefined,
    inputRequests: task.inputRequests as Record<string, InputRequest> | undefined,
    result: task.result as Record<string, unknown> | undefined,
    error: error?.message,
    pollMs: typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : undefined,
  };
}
