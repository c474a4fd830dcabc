// Drives a task to its end: polls at the server's pace, answers input requests once each, reports
// progress, and gives up (cancelling the task) when input_required polls stop bringing new keys.
import { setTimeout as sleep } from 'node:timers/promises';
import type { InputResponse } from '../workflows/mcp-contract.ts';
import type { Answerer } from './answerer.ts';
import { StuckPollError, StuckPollGuard } from './stuck-guard.ts';
import type { TaskPort, TaskView } from './task-view.ts';

class TaskEndedError extends Error {
  constructor(
    readonly taskId: string,
    readonly view: TaskView,
  ) {
    super(`task ${taskId} ended ${view.status}${view.error ? `: ${view.error}` : ''}`);
    this.name = 'TaskEndedError';
  }
}

export interface DriveOptions {
  answer: Answerer;
  onView?: (view: TaskView) => void;
  /** Consecutive input_required polls without a new key before giving up (default 60). */
  stuckLimit?: number;
  /** Used when the server names no interval. */
  defaultPollMs?: number;
  wait?: (ms: number) => Promise<void>;
}

export async function driveTask(port: TaskPort, options: DriveOptions): Promise<Record<string, unknown>> {
  const guard = new StuckPollGuard(options.stuckLimit ?? 60);
  const wait = options.wait ?? sleep;
  for (;;) {
    const view = await port.get();
    options.onView?.(view);
    switch (view.status) {
      case 'completed':
        return view.result ?? {};
      case 'failed':
      case 'cancelled':
      case 'not_found':
        throw new TaskEndedError(port.taskId, view);
      case 'input_required': {
        const fresh = guard.observe(Object.keys(view.inputRequests ?? {}));
        if (guard.stuck) {
          await port.cancel().catch(() => {});
          throw new StuckPollError(port.taskId, options.stuckLimit ?? 60);
        }
        if (fresh.length > 0) {
          const responses: Record<string, InputResponse> = {};
          for (const key of fresh) {
            const request = view.inputRequests?.[key];
            if (request) responses[key] = await options.answer(key, request);
          }
          await port.answer(responses);
        }
        break;
      }
      default:
        guard.reset();
    }
    await wait(view.pollMs ?? options.defaultPollMs ?? 1_000);
  }
}
