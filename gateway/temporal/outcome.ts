// A closed workflow's outcome (its result, or the error handle.result() threw) → ExecutionState.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { TOOL_ERROR_TYPE } from '../../workflows/mcp-contract.ts';
import type { ExecutionState } from './execution.ts';

export function completedState(result: unknown): ExecutionState {
  return { status: 'completed', result: result === undefined ? null : result };
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
    return failed(false, 'terminated', `was terminated${suffix(first.message)}`);
  }
  if (first instanceof TimeoutFailure) {
    return failed(false, 'timed_out', `timed out${suffix(first.message)}`);
  }
  // A failure of the contract's type, the workflow's own or an activity's it let through: the tool
  // answered with an error.
  const toolError = chain.find((e) => e instanceof ApplicationFailure && e.type === TOOL_ERROR_TYPE);
  if (toolError) return failed(true, TOOL_ERROR_TYPE, toolError.message);
  const root = chain.at(-1);
  return failed(false, 'failed', `failed: ${root?.message || err.message}`);
}

function suffix(message: string | undefined): string {
  return message && message !== 'Workflow execution terminated' ? `: ${message}` : '';
}

function failed(toolError: boolean, reason: string, message: string): ExecutionState {
  return { status: 'failed', toolError, reason, message };
}
