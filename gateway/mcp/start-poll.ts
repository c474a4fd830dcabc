// Execution state → the start/poll JSON of the tool contract (a catalog tool and its companions)
// and the CallToolResult that carries it. Pure.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import type { ExecutionView } from '../temporal/execution.ts';
import type { CatalogTool } from './catalog.ts';
import { INTERNAL_ERROR } from './json-rpc-errors.ts';
import { failureMessage } from './presentation.ts';

export type StartPollJson = (
  | { status: 'completed'; workflow_id: string; result: unknown; message?: string }
  | {
      status: 'running';
      workflow_id: string;
      poll_after_seconds: number;
      progress: Record<string, unknown> | null;
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

/** The tool facts the texts name. */
export type PollTool = Pick<CatalogTool, 'name' | 'companions' | 'presentation'>;

/** The poll interval in seconds, exactly as the server wants it (500 ms is 0.5, not 1). */
export function pollAfterSeconds(pollIntervalMs: number): number {
  return pollIntervalMs / 1000;
}

/** "1 second", "0.5 seconds", "2 seconds". */
export function secondsText(seconds: number): string {
  return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
}

export function startPollJson(
  view: Pick<ExecutionView, 'workflowId' | 'state'>,
  tool: PollTool,
  pollIntervalMs: number,
): StartPollJson {
  const id = view.workflowId;
  const state = view.state;
  const { presentation, companions } = tool;
  switch (state.status) {
    case 'completed': {
      const outcome = presentation.outcome(state.result);
      return {
        status: 'completed',
        workflow_id: id,
        result: state.result,
        ...(outcome?.message ? { message: outcome.message } : {}),
      };
    }
    case 'running': {
      const requests = state.progress?.inputRequests ?? {};
      if (Object.keys(requests).length > 0) {
        const answer = companions.respond
          ? `then send their answer with ${companions.respond} (workflow_id "${id}", the request's key, action and content).`
          : 'then tell the person the run waits for them.';
        return {
          status: 'input_required',
          workflow_id: id,
          input_requests: requests,
          next: `The run is paused until a person answers input_requests. Ask the user each request's message, ${answer}`,
        };
      }
      const seconds = pollAfterSeconds(pollIntervalMs);
      return {
        status: 'running',
        workflow_id: id,
        poll_after_seconds: seconds,
        progress: presentation.progressJson(state),
        ...(state.note ? { note: state.note } : {}),
        next:
          `${presentation.working(state)} Wait ${secondsText(seconds)}, then call ${companions.result} with workflow_id "${id}" exactly as given. ` +
          `Do not call ${tool.name} again for this request: that would start a second, duplicate job.`,
      };
    }
    case 'failed':
      return {
        status: 'failed',
        workflow_id: id,
        reason: state.reason,
        error: { code: INTERNAL_ERROR, message: failureMessage(state, presentation.noun) },
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

export function notFoundJson(workflowId: string, tool: PollTool): StartPollJson {
  return {
    status: 'not_found',
    workflow_id: workflowId,
    next:
      `No ${tool.presentation.noun} has this workflow_id (it never existed, has expired, or was copied wrongly). ` +
      `Do not poll it again. If the user still wants the work done, call ${tool.name} to start a new run.`,
  };
}

/** The CallToolResult carrying a start/poll JSON: structuredContent plus the same JSON as text. */
export function toolResult(json: StartPollJson, tool: PollTool): CallToolResult {
  const isError =
    json.status === 'failed' ||
    json.status === 'not_found' ||
    (json.status === 'completed' && tool.presentation.outcome(json.result)?.isError === true);
  return {
    content: [{ type: 'text', text: JSON.stringify(json) }],
    structuredContent: json as unknown as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
  };
}

/**
 * The outputSchema a start tool and its companions list: the start/poll JSON, with `result` (present
 * once completed) typed by the catalog entry's outputSchema. Every answer of the tool fits it, so a
 * client that validates structuredContent accepts handles and results alike.
 */
export function startPollOutputSchema(resultSchema: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['status', 'workflow_id'],
    properties: {
      status: {
        type: 'string',
        enum: ['completed', 'running', 'input_required', 'failed', 'cancelled', 'not_found'],
      },
      workflow_id: { type: 'string' },
      result: resultSchema,
      message: { type: 'string' },
      poll_after_seconds: { type: 'number' },
      progress: { type: ['object', 'null'] },
      input_requests: { type: 'object' },
      reason: { type: 'string' },
      error: { type: 'object' },
      next: { type: 'string' },
      note: { type: 'string' },
    },
  };
}
