// Execution state → the Tasks extension's shapes: CreateTaskResult (tools/call) and the detailed
// task of tasks/get. Pure. Status rules: running → working (input_required when the workflow asks
// for input); completed → completed with the tool result; a tool-level failure → completed with
// isError; cancelled → cancelled; any other failure → failed with a JSON-RPC error.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { InputRequest } from '../../workflows/contract.ts';
import type { ExecutionView, JsonRpcErrorObject } from '../temporal/execution.ts';
import { publicationOutcome } from './publication.ts';
import { hashesSoFar, startPollJson, toolResult } from './start-poll.ts';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface TaskTiming {
  ttlMs: number;
  pollIntervalMs: number;
}

interface TaskBase {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
}

export type DetailedTask =
  | (TaskBase & { status: 'working' })
  | (TaskBase & { status: 'input_required'; inputRequests: Record<string, InputRequest> })
  | (TaskBase & { status: 'completed'; result: CallToolResult & { resultType: 'complete' } })
  | (TaskBase & { status: 'failed'; error: JsonRpcErrorObject })
  | (TaskBase & { status: 'cancelled' });

export type GetTaskResult = DetailedTask & { resultType: 'complete' };

export type CreateTaskResult = TaskBase & { resultType: 'task' };

function base(view: ExecutionView, status: TaskStatus, timing: TaskTiming): TaskBase {
  const terminal = status === 'completed' || status === 'failed' || status === 'cancelled';
  const message = statusMessage(view);
  return {
    taskId: view.workflowId,
    status,
    ...(message ? { statusMessage: message } : {}),
    createdAt: view.createdAt.toISOString(),
    lastUpdatedAt: view.lastUpdatedAt.toISOString(),
    ttlMs: timing.ttlMs,
    ...(terminal ? {} : { pollIntervalMs: timing.pollIntervalMs }),
  };
}

export function taskStatus(view: ExecutionView): TaskStatus {
  const state = view.state;
  switch (state.status) {
    case 'running':
      return Object.keys(state.progress?.inputRequests ?? {}).length > 0 ? 'input_required' : 'working';
    case 'completed':
      return 'completed';
    case 'failed':
      return state.toolError ? 'completed' : 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}

export function detailedTask(view: ExecutionView, timing: TaskTiming): DetailedTask {
  const status = taskStatus(view);
  const state = view.state;
  switch (status) {
    case 'working':
      return { ...base(view, status, timing), status };
    case 'input_required':
      return {
        ...base(view, status, timing),
        status,
        inputRequests: (state.status === 'running' && state.progress?.inputRequests) || {},
      };
    case 'completed':
      return {
        ...base(view, status, timing),
        status,
        result: { ...toolResult(startPollJson(view, timing.pollIntervalMs)), resultType: 'complete' },
      };
    case 'failed':
      return {
        ...base(view, status, timing),
        status,
        error: state.status === 'failed' ? state.error : { code: -32603, message: 'failed' },
      };
    case 'cancelled':
      return { ...base(view, status, timing), status };
  }
}

/** tasks/get's answer: the detailed task, marked as a complete result. */
export function getTaskResult(view: ExecutionView, timing: TaskTiming): GetTaskResult {
  return { ...detailedTask(view, timing), resultType: 'complete' };
}

/** tools/call's answer when the run outlives the wait budget and the client takes tasks. */
export function createTaskResult(view: ExecutionView, timing: TaskTiming): CreateTaskResult {
  return { ...base(view, taskStatus(view), timing), resultType: 'task' };
}

const count = new Intl.NumberFormat('en-US');

/** One line for people and models: what the run is doing or how it ended. */
export function statusMessage(view: ExecutionView): string | undefined {
  const state = view.state;
  const difficulty = view.input ? ` at difficulty ${view.input.difficulty}` : '';
  switch (state.status) {
    case 'running': {
      const p = state.progress;
      if (!p)
        return state.note ?? (view.input ? `Mining ${view.input.blocks} block(s)${difficulty}` : undefined);
      if (Object.keys(p.inputRequests).length > 0) return 'Waiting for a person to answer the input requests';
      if (p.phase === 'publishing') return 'Publishing the mined chain';
      const hashes = hashesSoFar(p);
      const block =
        p.currentBlock === null
          ? ''
          : `Mining block ${p.currentBlock + 1} of ${p.blocksTotal}${difficulty}: `;
      return `${block}${p.blocksDone} of ${p.blocksTotal} blocks done, about ${count.format(hashes)} hashes tried`;
    }
    case 'completed': {
      const mined = `Mined ${state.result.blocks.length} blocks${difficulty}; final hash ${state.result.finalHash}`;
      const publication = publicationOutcome(state.result);
      return publication ? `${mined}. ${publication.message}` : mined;
    }
    case 'failed':
      return state.toolError ? `Mining refused: ${state.error.message}` : state.error.message;
    case 'cancelled':
      return 'The mining run was cancelled';
  }
}

/** tasks/update and tasks/cancel acknowledge with an empty complete result. */
export function emptyAck(): { resultType: 'complete' } {
  return { resultType: 'complete' };
}
