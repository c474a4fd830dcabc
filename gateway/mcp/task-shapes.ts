// The Tasks extension's shapes, from a run as it is now: the CreateTaskResult a tools/call answers
// when the run outlasts the budget, the detailed task tasks/get and pushed notifications carry, and
// the empty acknowledgement of tasks/update and tasks/cancel. Pure.
//
// Task status: running → working (input_required when the workflow asks for input); completed →
// completed with the tool result; a tool-level failure → completed with isError; cancelled →
// cancelled; any other failure → failed with a JSON-RPC error.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import {
  type ExecutionState,
  type ExecutionView,
  hasInputRequests,
  type ListedState,
} from '../temporal/run-state.ts';
import { INTERNAL_ERROR, type JsonRpcErrorObject } from './errors.ts';
import type { TaskTiming } from './poll-pacing.ts';
import {
  failureMessage,
  type PollTool,
  pollAfterSeconds,
  secondsText,
  startPollJson,
  toolResult,
} from './start-poll.ts';

type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

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

/** The fields every task shape has; `pollIntervalMs` is advised only while the task goes on. */
function taskBase(view: ExecutionView, tool: PollTool, ttlMs: number, pollIntervalMs: number): TaskBase {
  const status = taskStatus(view.state);
  const terminal = status === 'completed' || status === 'failed' || status === 'cancelled';
  const message = tool.presentation.statusMessage(view);
  return {
    taskId: view.taskId,
    status,
    ...(message ? { statusMessage: message } : {}),
    createdAt: view.createdAt.toISOString(),
    lastUpdatedAt: view.lastUpdatedAt.toISOString(),
    ttlMs,
    ...(terminal ? {} : { pollIntervalMs }),
  };
}

/**
 * The task status of a run's state (of both protocol eras); a run known by its status alone (a
 * listing) asks no input and is no tool error.
 */
export function taskStatus(state: ExecutionState | ListedState): TaskStatus {
  switch (state.status) {
    case 'running':
      return hasInputRequests(state) ? 'input_required' : 'working';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'toolError' in state && state.toolError ? 'completed' : 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}

export function detailedTask(view: ExecutionView, tool: PollTool, timing: TaskTiming): DetailedTask {
  const state = view.state;
  const status = taskStatus(state);
  // One advice per answer: the task's field and any text that names it agree.
  const interval = timing.pollIntervalFor(view);
  const fields = taskBase(view, tool, timing.ttlMs, interval);
  switch (status) {
    case 'working':
      return { ...fields, status };
    case 'input_required':
      return {
        ...fields,
        status,
        inputRequests: (state.status === 'running' && state.progress?.inputRequests) || {},
      };
    case 'completed':
      return {
        ...fields,
        status,
        result: {
          ...toolResult(startPollJson(view, tool, interval), tool),
          resultType: 'complete',
        },
      };
    case 'failed': {
      const message = state.status === 'failed' ? failureMessage(state, tool.presentation.noun) : 'failed';
      const reason = state.status === 'failed' ? state.reason : 'failed';
      return {
        ...fields,
        status,
        error: { code: INTERNAL_ERROR, message, data: { reason } },
      };
    }
    case 'cancelled':
      return { ...fields, status };
  }
}

/** tasks/get's answer: the detailed task, marked as a complete result. */
export function getTaskResult(view: ExecutionView, tool: PollTool, timing: TaskTiming): GetTaskResult {
  return { ...detailedTask(view, tool, timing), resultType: 'complete' };
}

/** tools/call's answer when the run outlives the wait budget and the client takes tasks. */
export function createTaskResult(view: ExecutionView, tool: PollTool, timing: TaskTiming): CreateTaskResult {
  const interval = timing.pollIntervalFor(view);
  const task = taskBase(view, tool, timing.ttlMs, interval);
  const id = task.taskId;
  const text =
    `Started task ${id} (${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}); the work goes on ` +
    `in the background. Follow it with tasks/get (taskId "${id}"), about every ${secondsText(pollAfterSeconds(interval))}. ` +
    `Without task support, call ${tool.companions.result} with workflow_id "${id}" instead. ` +
    `Do not call ${tool.name} again for this request.`;
  const handle = startPollJson(view, tool, interval) as unknown as Record<string, unknown>;
  return { ...task, resultType: 'task', content: [{ type: 'text', text }], structuredContent: handle };
}

/** tasks/update and tasks/cancel acknowledge with an empty complete result. */
export function emptyAck(): { resultType: 'complete' } {
  return { resultType: 'complete' };
}
