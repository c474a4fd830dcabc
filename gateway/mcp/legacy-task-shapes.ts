// The 2025-11-25 revision's tasks (SEP-1686), for clients of that revision: the task object its
// tasks/get, tasks/list and tasks/cancel answer and its CreateTaskResult carries, made from the same
// detailed task the Tasks extension answers; and what its tasks/result answers for a task that
// ended. Pure.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ListedRun } from '../temporal/listing.ts';
import type { ExecutionView } from '../temporal/run-state.ts';
import type { TaskTiming } from './poll-pacing.ts';
import type { PollTool } from './start-poll.ts';
import { type DetailedTask, detailedTask, taskStatus } from './task-shapes.ts';

/** The _meta key that ties a message or result to the task it belongs to. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

export interface LegacyTask {
  taskId: string;
  status: DetailedTask['status'];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

function fromDetailed(task: DetailedTask): LegacyTask {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = task;
  return {
    ...{ taskId, status, createdAt, lastUpdatedAt, ttl: ttlMs },
    ...(statusMessage ? { statusMessage } : {}),
    ...(pollIntervalMs === undefined ? {} : { pollInterval: pollIntervalMs }),
  };
}

/** The task as tasks/get answers it. */
export function legacyTask(view: ExecutionView, tool: PollTool, timing: TaskTiming): LegacyTask {
  return fromDetailed(detailedTask(view, tool, timing));
}

/**
 * A task-augmented tools/call's answer: the task, whatever its status (the client follows it), and
 * for a client that reads only `content`, a line saying how to follow it.
 */
export function legacyCreateTaskResult(view: ExecutionView, tool: PollTool, timing: TaskTiming) {
  const task = legacyTask(view, tool, timing);
  const text =
    `Started task ${task.taskId} (${task.status}); follow it with tasks/get and read its result with ` +
    `tasks/result, or call ${tool.companions.result} with workflow_id "${task.taskId}".`;
  return { task, content: [{ type: 'text' as const, text }] };
}

/** A task of tasks/list, from visibility alone (a list asks no run for its progress). */
export function listedTask(run: ListedRun, timing: Pick<TaskTiming, 'ttlMs'>): LegacyTask {
  return {
    taskId: run.workflowId,
    status: taskStatus(run.state),
    createdAt: run.startedAt.toISOString(),
    lastUpdatedAt: (run.closedAt ?? run.startedAt).toISOString(),
    ttl: timing.ttlMs,
  };
}

/**
 * What tasks/result answers for a task that has ended or asks for input: the tool's result (a tool
 * error included, isError), tied to the task; `undefined` while it works. A failure or a
 * cancellation is a JSON-RPC error, which `failure` makes.
 */
export function legacyTaskOutcome(
  task: DetailedTask,
  failure: (message: string, data: Record<string, unknown>) => Error,
): CallToolResult | undefined {
  const related = { [RELATED_TASK]: { taskId: task.taskId } };
  switch (task.status) {
    case 'completed': {
      const { resultType: _complete, ...result } = task.result;
      return { ...result, _meta: { ...result._meta, ...related } };
    }
    case 'failed':
      throw failure(task.error.message, { ...((task.error.data as object) ?? {}), ...related });
    case 'cancelled':
      throw failure(`Task ${task.taskId} was cancelled`, { reason: 'cancelled', ...related });
    default:
      return undefined;
  }
}
