// Calls a tool and follows whatever comes back to the end: an inline result, a task
// (Tasks extension) or a start/poll handle.
import { type Companions, defaultCompanions } from './companions.ts';
import { type DriveOptions, driveTask } from './drive.ts';
import { handleOf, pollPort, viewOfHandle } from './poll-port.ts';
import { pushedPort } from './push-port.ts';
import type { Rpc } from './rpc.ts';
import type { TaskPort } from './task-view.ts';
import { tasksPort } from './tasks-port.ts';

export interface CallOutcome {
  /** The final CallToolResult. */
  result: Record<string, unknown>;
  /** The task or workflow id when the call did not finish inline. */
  taskId?: string;
}

export async function callTool(
  rpc: Rpc,
  name: string,
  args: Record<string, unknown>,
  options: DriveOptions & {
    onTask?: (port: TaskPort) => void;
    /** The tool's start/poll companions, for a handle; the gateway's naming rule by default. */
    companions?: Companions;
  },
): Promise<CallOutcome> {
  // Asks for progress: the bar moves from the first second of the call's bounded wait.
  const first = await rpc(
    'tools/call',
    { name, arguments: args },
    {
      onProgress: ({ progress, total, message }) =>
        options.onView?.({ status: 'working', message, fraction: { progress, total } }),
    },
  );
  const companions = options.companions ?? defaultCompanions(name);
  const port = await followWithPush(rpc, portOf(rpc, first, companions));
  if (!port) return { result: first };
  options.onTask?.(port);
  if (first.resultType !== 'task') {
    const handle = handleOf(first);
    if (handle) options.onView?.(viewOfHandle(handle, first));
  }
  return { result: await driveTask(port, options), taskId: port.taskId };
}

/** A task port that takes pushed status when the server offers it (subscriptions/listen), else polls. */
export async function followWithPush(rpc: Rpc, port: TaskPort | undefined): Promise<TaskPort | undefined> {
  if (!port?.pushable || !rpc.listen) return port;
  const stream = await rpc.listen([port.taskId]);
  return stream?.honoured.includes(port.taskId) ? pushedPort(stream, port) : port;
}

/** The port to keep following a tool call's answer, or undefined when it is final. */
function portOf(rpc: Rpc, result: Record<string, unknown>, companions: Companions): TaskPort | undefined {
  if (result.resultType === 'task' && typeof result.taskId === 'string') return tasksPort(rpc, result.taskId);
  const handle = handleOf(result);
  const pending = handle?.status === 'running' || handle?.status === 'input_required';
  if (pending && typeof handle.workflow_id === 'string') return pollPort(rpc, handle.workflow_id, companions);
  return undefined;
}
