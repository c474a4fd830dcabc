// A task followed by push: each get() is the next notifications/tasks the server sends (no wait
// between them), falling back to tasks/get polls once the stream ends or fails.
import type { TaskStream } from './rpc.ts';
import type { TaskPort, TaskView } from './task-view.ts';
import { viewOfTask } from './tasks-port.ts';

export function pushedPort(stream: TaskStream, polled: TaskPort): TaskPort {
  let live = true;
  return {
    taskId: polled.taskId,
    pushable: polled.pushable,
    async get(): Promise<TaskView> {
      if (live) {
        const message = await stream.next().catch(() => undefined);
        if (message?.method === 'notifications/tasks') {
          return { ...viewOfTask(message.params as Record<string, unknown>), pollMs: 0 };
        }
        live = false;
        stream.close();
      }
      return polled.get();
    },
    answer: (responses) => polled.answer(responses),
    async cancel() {
      await polled.cancel();
    },
  };
}
