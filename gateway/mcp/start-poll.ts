// Execution state → the start/poll JSON of the tool contract (start_mining, get_mining_result,
// cancel_mining) and the CallToolResult that carries it. Pure.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ChainResult, InputRequest } from '../../workflows/contract.ts';
import type { ExecutionView, LiveProgress } from '../temporal/execution.ts';
import { publicationOutcome } from './publication.ts';

export interface ProgressJson {
  phase: string;
  blocks_done: number;
  blocks_total: number;
  hashes_tried: number;
  current_block: number | null;
  current_block_nonce?: number;
}

export type StartPollJson = (
  | { status: 'completed'; workflow_id: string; result: ChainResult; message?: string }
  | {
      status: 'running';
      workflow_id: string;
      poll_after_seconds: number;
      progress: ProgressJson | null;
      next: string;
    }
  | {
      status: 'input_required';
      workflow_id: string;
      input_requests: Record<string, InputRequest>;
      next: string;
    }
  | {
      status: 'failed';
      workflow_id: string;
      reason: string;
      error: { code: number; message: string };
      next: string;
    }
  | { status: 'cancelled'; workflow_id: string; next: string }
  | { status: 'not_found'; workflow_id: string; next: string }
) & {
  /** Something the reader should know besides the status (no worker polling, an ignored answer). */
  note?: string;
};

export function pollAfterSeconds(pollIntervalMs: number): number {
  return Math.max(1, Math.ceil(pollIntervalMs / 1000));
}

/** Hashes tried so far: finished blocks plus the block in flight (from its last heartbeat). */
export function hashesSoFar(progress: LiveProgress): number {
  return (
    progress.hashesTried + (progress.currentBlockNonce === undefined ? 0 : progress.currentBlockNonce + 1)
  );
}

export function progressJson(progress: LiveProgress): ProgressJson {
  return {
    phase: progress.phase,
    blocks_done: progress.blocksDone,
    blocks_total: progress.blocksTotal,
    hashes_tried: hashesSoFar(progress),
    current_block: progress.currentBlock,
    ...(progress.currentBlockNonce === undefined ? {} : { current_block_nonce: progress.currentBlockNonce }),
  };
}

export function startPollJson(
  view: Pick<ExecutionView, 'workflowId' | 'state'>,
  pollIntervalMs: number,
): StartPollJson {
  const id = view.workflowId;
  const state = view.state;
  switch (state.status) {
    case 'completed': {
      const publication = publicationOutcome(state.result);
      return {
        status: 'completed',
        workflow_id: id,
        result: state.result,
        ...(publication ? { message: publication.message } : {}),
      };
    }
    case 'running': {
      const requests = state.progress?.inputRequests ?? {};
      if (Object.keys(requests).length > 0) {
        return {
          status: 'input_required',
          workflow_id: id,
          input_requests: requests,
          next:
            "The run is paused until a person answers input_requests. Ask the user each request's message, " +
            `then send their answer with respond_to_mining (workflow_id "${id}", the request's key, action and content).`,
        };
      }
      const seconds = pollAfterSeconds(pollIntervalMs);
      return {
        status: 'running',
        workflow_id: id,
        poll_after_seconds: seconds,
        progress: state.progress ? progressJson(state.progress) : null,
        ...(state.note ? { note: state.note } : {}),
        next:
          `Still mining. Wait ${seconds} seconds, then call get_mining_result with workflow_id "${id}" exactly as given. ` +
          'Do not call start_mining again for this request: that would start a second, duplicate job.',
      };
    }
    case 'failed':
      return {
        status: 'failed',
        workflow_id: id,
        reason: state.reason,
        error: { code: state.error.code, message: state.error.message },
        next: 'Stop polling: this run will not finish. Tell the user what went wrong (error.message).',
      };
    case 'cancelled':
      return {
        status: 'cancelled',
        workflow_id: id,
        next: 'The run was cancelled and will not produce a result. Do not poll it again.',
      };
  }
}

export function notFoundJson(workflowId: string): StartPollJson {
  return {
    status: 'not_found',
    workflow_id: workflowId,
    next:
      'No mining run has this workflow_id (it never existed, has expired, or was copied wrongly). ' +
      'Do not poll it again. If the user still wants the work done, call start_mining to start a new run.',
  };
}

/** The CallToolResult carrying a start/poll JSON: structuredContent plus the same JSON as text. */
export function toolResult(json: StartPollJson): CallToolResult {
  const isError =
    json.status === 'failed' ||
    json.status === 'not_found' ||
    (json.status === 'completed' && publicationOutcome(json.result)?.isError === true);
  return {
    content: [{ type: 'text', text: JSON.stringify(json) }],
    structuredContent: json as unknown as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
  };
}
