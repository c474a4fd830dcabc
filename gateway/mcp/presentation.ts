// How a tool's runs read to people and models: the generic presentation, built from the workflow
// contract alone, which a catalog entry's hooks may override member by member (the built-in mining
// entry does). Part of the public hooks API (gateway/hooks.ts). Pure.

import { hasInputRequests } from '../temporal/run-state.ts';
import type { Presentation } from './presentation-hooks.ts';
import { failureMessage } from './start-poll.ts';

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
