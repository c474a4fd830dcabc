// Execution state → the Tasks extension's shapes: CreateTaskResult (tools/call) and the detailed
// task of tasks/get. Pure. Status rules: running → working (input_required when the workflow asks
// for input); completed → completed with the tool result; a tool-level failure → completed with
// isError; cancelled → cancelled; any other failure → failed with a JSON-RPC error.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import type { ExecutionView } from '../temporal/execution.ts';
import { INTERNAL_ERROR } from './json-rpc-errors.ts';
import { failureMessage } from './presentation.ts';
import { type PollTool, pollAfterSeconds, secondsText, startPollJson, toolResult } from './start-poll.ts';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface TaskTiming {
  ttlMs: number;
  pollIntervalMs: number;
}

/** A JSON-RPC error object, as carried by a failed task. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
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

export type CreateTaskResult = TaskBase & {
  resultType: 'task';
  /** For clients that drop the task fields they do not know: the task id and how to follow it. */
  content: [{ type: 'text'; text: string }];
  /** The same as start/poll JSON, so a client that checks the tool's outputSchema accepts it. */
  structuredContent: Record<string, unknown>;
};

function base(view: ExecutionView, status: TaskStatus, tool: PollTool, timing: TaskTiming): TaskBase {
  const terminal = status === 'completed' || status === 'failed' || status === 'cancelled';
  const message = tool.presentation.statusMessage(view);
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

export function taskStatus(view: Pick<ExecutionView, 'state'>): TaskStatus {
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

export function detailedTask(view: ExecutionView, tool: PollTool, timing: TaskTiming): DetailedTask {
  const status = taskStatus(view);
  const state = view.state;
  switch (status) {
    case 'working':
      return { ...base(view, status, tool, timing), status };
    case 'input_required':
      return {
        ...base(view, status, tool, timing),
        status,
        inputRequests: (state.status === 'running' && state.progress?.inputRequests) || {},
      };
    case 'completed':
      return {
        ...base(view, status, tool, timing),
        status,
        result: {
          ...toolResult(startPollJson(view, tool, timing.pollIntervalMs), tool),
          resultType: 'complete',
        },
      };
    case 'failed': {
      const message = state.status === 'failed' ? failureMessage(state, tool.presentation.noun) : 'failed';
      const reason = state.status === 'failed' ? state.reason : 'failed';
      return {
        ...base(view, status, tool, timing),
        status,
        error: { code: INTERNAL_ERROR, message, data: { reason } },
      };
    }
    case 'cancelled':
      return { ...base(view, status, tool, timing), status };
  }
}

/** tasks/get's answer: the detailed task, marked as a complete result. */
export function getTaskResult(view: ExecutionView, tool: PollTool, timing: TaskTiming): GetTaskResult {
  return { ...detailedTask(view, tool, timing), resultType: 'complete' };
}

/** tools/call's answer when the run outlives the wait budget and the client takes tasks. */
export function createTaskResult(view: ExecutionView, tool: PollTool, timing: TaskTiming): CreateTaskResult {
  const task = base(view, taskStatus(view), tool, timing);
  const id = task.taskId;
  const text =
    `Started task ${id} (${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}); the work goes on ` +
    `in the background. Follow it with tasks/get (taskId "${id}"), every ${secondsText(pollAfterSeconds(timing.pollIntervalMs))}. ` +
    `Without task support, call ${tool.companions.result} with workflow_id "${id}" instead. ` +
    `Do not call ${tool.name} again for this request.`;
  const handle = startPollJson(view, tool, timing.pollIntervalMs) as unknown as Record<string, unknown>;
  return { ...task, resultType: 'task', content: [{ type: 'text', text }], structuredContent: handle };
}

/** tasks/update and tasks/cancel acknowledge with an empty complete result. */
export function emptyAck(): { resultType: 'complete' } {
  return { resultType: 'complete' };
}
