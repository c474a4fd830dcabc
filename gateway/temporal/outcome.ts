// A closed workflow's outcome (its result, or the error handle.result() threw) → ExecutionState.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import type { ChainResult } from '../../workflows/contract.ts';
import { INTERNAL_ERROR } from '../mcp/json-rpc-errors.ts';
import type { ExecutionState } from './execution.ts';

export function completedState(result: ChainResult): ExecutionState {
  return { status: 'completed', result };
}

function causes(err: Error | undefined): Error[] {
  const chain: Error[] = [];
  for (let e: unknown = err; e instanceof Error && chain.length < 20; e = (e as { cause?: unknown }).cause) {
    chain.push(e);
  }
  return chain;
}

/**
 * The state a workflow ended in, from the error its result threw; undefined when the error is not a
 * workflow outcome (Temporal unreachable, our own abort), so the caller can treat it as an error.
 */
export function stateFromResultError(err: unknown): ExecutionState | undefined {
  if (!(err instanceof WorkflowFailedError)) return undefined;
  const chain = causes(err.cause);
  const first = chain[0];
  if (first instanceof CancelledFailure) return { status: 'cancelled' };
  if (first instanceof TerminatedFailure) {
    return failed(false, 'terminated', `The mining run was terminated${suffix(first.message)}`);
  }
  if (first instanceof TimeoutFailure) {
    return failed(false, 'timed_out', `The mining run timed out${suffix(first.message)}`);
  }
  const application = chain.filter((e) => e instanceof ApplicationFailure).at(-1) as
    | ApplicationFailure
    | undefined;
  if (application?.nonRetryable) {
    return failed(true, application.type || 'ApplicationError', application.message);
  }
  const root = chain.at(-1);
  return failed(false, 'failed', `The mining run failed: ${root?.message || err.message}`);
}

function suffix(message: string | undefined): string {
  return message && message !== 'Workflow execution terminated' ? `: ${message}` : '';
}

function failed(toolError: boolean, reason: string, message: string): ExecutionState {
  return {
    status: 'failed',
    toolError,
    reason,
    error: { code: INTERNAL_ERROR, message, data: { reason } },
  };
}
