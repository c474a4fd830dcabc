// A start/poll handle, for servers or clients without the Tasks extension: the start tool's own
// companions (result poll, respond, cancel) on a workflow_id.
import type { InputRequest, InputResponse } from '../workflows/mcp-contract.ts';
import type { Companions } from './companions.ts';
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

const numberOr = (value: unknown) => (typeof value === 'number' ? value : undefined);

export function viewOfHandle(handle: Record<string, unknown>, toolResult: Record<string, unknown>): TaskView {
  const status = handle.status === 'running' ? 'working' : (handle.status as TaskView['status']);
  const error = handle.error as { message?: string } | string | undefined;
  // Progress comes as the workflow contract's {progress, total, message} (any catalog tool) or as
  // mining's own blocks_done / blocks_total / hashes_tried.
  const progress = (handle.progress ?? {}) as Record<string, unknown>;
  const done = numberOr(progress.progress);
  const blocksDone = numberOr(progress.blocks_done);
  const message = typeof progress.message === 'string' ? progress.message : undefined;
  return {
    status,
    message: message ?? (handle.next as string | undefined) ?? (handle.reason as string | undefined),
    ...(blocksDone !== undefined
      ? {
          progress: {
            blocksDone,
            blocksTotal: numberOr(progress.blocks_total),
            hashesTried: numberOr(progress.hashes_tried),
          },
        }
      : {}),
    ...(done !== undefined ? { fraction: { progress: done, total: numberOr(progress.total) } } : {}),
    inputRequests: handle.input_requests as Record<string, InputRequest> | undefined,
    result: status === 'completed' ? toolResult : undefined,
    error: typeof error === 'string' ? error : (error?.message ?? (handle.reason as string | undefined)),
    pollMs: typeof handle.poll_after_seconds === 'number' ? handle.poll_after_seconds * 1000 : undefined,
  };
}

export function pollPort(rpc: Rpc, workflowId: string, companions: Companions): TaskPort {
  const call = (name: string, args: Record<string, unknown>) =>
    rpc('tools/call', { name, arguments: { workflow_id: workflowId, ...args } });
  return {
    taskId: workflowId,
    async get() {
      const result = await call(companions.result, {});
      const handle = handleOf(result);
      if (!handle) throw new Error(`${companions.result} returned no status for ${workflowId}`);
      return viewOfHandle(handle, result);
    },
    async answer(responses: Record<string, InputResponse>) {
      const respond = companions.respond;
      if (!respond)
        throw new Error(`${workflowId} asks for input, but the server lists no respond companion`);
      for (const [key, response] of Object.entries(responses)) {
        await call(respond, { key, action: response.action, content: response.content });
      }
    },
    async cancel() {
      if (!companions.cancel) throw new Error(`the server lists no cancel companion for ${workflowId}`);
      await call(companions.cancel, {});
    },
  };
}
