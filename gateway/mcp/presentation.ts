// How a tool's runs read to people and models: the generic presentation, built from the workflow
// contract alone, which a catalog entry's hooks may override member by member (the built-in mining
// entry does). Part of the public hooks API (gateway/hooks.ts). Pure.
import type { ExecutionState, ExecutionView, RunningState } from '../temporal/run-state.ts';
import { failureMessage, hasInputRequests } from './start-poll.ts';

export interface ResultOutcome {
  /** A line about the result, shown beside it (start/poll `message`) and as the statusMessage. */
  message?: string;
  /** The result is the tool's error answer (isError), though the run completed. */
  isError?: boolean;
}

/** One notifications/progress report. */
export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * How a tool's runs read. Every tool has the generic presentation, built from the workflow
 * contract alone; a catalog entry's hooks may override any member (the built-in mining entry does).
 */
export interface Presentation {
  /** What one run is called in texts: "run", "mining run". */
  noun: string;
  /** The workflow's single argument, from the validated tool arguments. */
  workflowInput(args: Record<string, unknown>, idempotencyKeyArgument?: string): unknown;
  /** One line for the Web UI list of runs. */
  summary(tool: string, args: Record<string, unknown>, principal: string): string;
  /** The start/poll `progress` object of a running run; null when there is none to show. */
  progressJson(state: RunningState): Record<string, unknown> | null;
  /** The first words of a running handle's `next` text. */
  working(state: RunningState): string;
  /** The task's statusMessage. */
  statusMessage(view: ExecutionView): string | undefined;
  outcome(result: unknown): ResultOutcome | undefined;
  /** A running run's progress for notifications/progress. */
  progressReport(view: ExecutionView): ProgressReport;
}

export const genericPresentation: Presentation = {
  noun: 'run',
  workflowInput(args, idempotencyKeyArgument) {
    if (!idempotencyKeyArgument) return args;
    const { [idempotencyKeyArgument]: _key, ...rest } = args;
    return rest;
  },
  summary: (tool, _args, principal) => `${tool} for ${principal}`,
  progressJson(state) {
    const { message, progress, total } = state.progress ?? {};
    const json = {
      ...(typeof progress === 'number' ? { progress } : {}),
      ...(typeof total === 'number' ? { total } : {}),
      ...(typeof message === 'string' ? { message } : {}),
    };
    return Object.keys(json).length > 0 ? json : null;
  },
  working(state) {
    const message = state.progress?.message;
    return typeof message === 'string' && message !== '' ? `Still running: ${message}.` : 'Still running.';
  },
  statusMessage(view) {
    const state = view.state;
    switch (state.status) {
      case 'running': {
        const message = state.progress?.message;
        if (typeof message === 'string' && message !== '') return message;
        if (hasInputRequests(state)) return 'Waiting for a person to answer the input requests';
        return state.note;
      }
      case 'completed':
        return this.outcome(state.result)?.message;
      case 'failed':
        return failureMessage(state, this.noun);
      case 'cancelled':
        return `The ${this.noun} was cancelled`;
    }
  },
  outcome: () => undefined,
  progressReport(view) {
    const answer = view.state.status === 'running' ? view.state.progress : undefined;
    const message = this.statusMessage(view);
    return {
      progress: typeof answer?.progress === 'number' ? answer.progress : 0,
      ...(typeof answer?.total === 'number' ? { total: answer.total } : {}),
      ...(message ? { message } : {}),
    };
  },
};
