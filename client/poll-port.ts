// A start/poll handle, for servers or clients without the Tasks extension:
// get_mining_result, respond_to_mining, cancel_mining on a workflow_id.
import type { InputRequest, InputResponse } from '../workflows/contract.ts';
import type { Rpc } from './rpc.ts';
import type { TaskPort, TaskView } from './task-view.ts';

/** The start/poll JSON of a tool result (structuredContent, or the first text block). */
export function handleOf(result: Record<string, unknown>): Record<string, unknown> | undefined {
  if (result.structuredContent && typeof result.structuredContent === 'object') {
    return result.structuredContent as Record<string, unknown>;
  }
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  if (first?.type !== 'text' || !first.text) return undefined;
  try {
    return JSON.parse(first.text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export function viewOfHandle(handle: Record<string, unknown>, toolResult: Record<string, unknown>): TaskView {
  const status = handle.status === 'running' ? 'working' : (handle.status as TaskView['status']);
  const error = handle.error as { message?: string } | string | undefined;
  return {
    status,
    message: (handle.next as string | undefined) ?? (handle.reason as string | undefined),
    progress: handle.progress as TaskView['progress'],
    inputRequests: handle.input_requests as Record<string, InputRequest> | undefined,
    result: status === 'completed' ? toolResult : undefined,
    error: typeof error === 'string' ? error : (error?.message ?? (handle.reason as string | undefined)),
    pollMs: typeof handle.poll_after_seconds === 'number' ? handle.poll_after_seconds * 1000 : undefined,
  };
}

export function pollPort(rpc: Rpc, workflowId: string): TaskPort {
  const call = (name: string, args: Record<string, unknown>) =>
    rpc('tools/call', { name, arguments: { workflow_id: workflowId, ...args } });
  return {
    taskId: workflowId,
    async get() {
      const result = await call('get_mining_result', {});
      const handle = handleOf(result);
      if (!handle) throw new Error(`get_mining_result returned no status for ${workflowId}`);
      return viewOfHandle(handle, result);
    },
    async answer(responses: Record<string, InputResponse>) {
      for (const [key, response] of Object.entries(responses)) {
        await call('respond_to_mining', { key, action: response.action, content: response.content });
      }
    },
    async cancel() {
      await call('cancel_mining', {});
    },
  };
}
