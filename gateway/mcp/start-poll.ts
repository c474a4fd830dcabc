// The start/poll JSON of the tool contract (completed, running, input_required, failed, cancelled,
// not_found), as the start tool and its companions answer it to clients without tasks, and the
// CallToolResult that carries it (with a resource_link per artifact of a completed run). Pure.
import { type CallToolResult, isCallToolResult } from '@modelcontextprotocol/server';
import { type ArtifactReference, type InputRequest, TOOL_ERROR_TYPE } from '../../workflows/mcp-contract.ts';
import { type ExecutionState, type ExecutionView, hasInputRequests } from '../temporal/run-state.ts';
import { namesNoRun } from '../temporal/task-ids.ts';
import { artifactReferences, artifactSummary, resourceLink } from './artifacts.ts';
import { INTERNAL_ERROR, NO_RUN_NOTE } from './errors.ts';
import type { TaskTiming } from './poll-pacing.ts';
import type { Presentation } from './presentation-hooks.ts';

/** A failed run's message for people: a tool error's own, or "The <noun> was terminated: …". */
export function failureMessage(state: Extract<ExecutionState, { status: 'failed' }>, noun: string): string {
  return state.toolError ? state.message : `The ${noun} ${state.message}`;
}

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
      /** How long to wait before looking again while nobody has answered. */
      poll_after_seconds: number;
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

/** The companion tools of a catalog tool: start/poll names the texts give. */
export interface Companions {
  /** Polls a run: the start/poll JSON. */
  result: string;
  cancel: string;
  /** Answers an input request; only for tools with an input signal. */
  respond?: string;
  /** Lists the caller's recent runs of the tool; only when the catalog entry names it. */
  list?: string;
}

/** The tool facts the answers name. */
export interface PollTool {
  name: string;
  companions: Companions;
  presentation: Presentation;
  /** `toolResult`: a completed run's result is itself the MCP tool result (see mcp-contract.ts). */
  resultShape?: 'json' | 'toolResult';
}

/** The poll interval in seconds, exactly as the server advises it (500 ms is 0.5, not 1). */
export function pollAfterSeconds(pollIntervalMs: number): number {
  return pollIntervalMs / 1000;
}

/** "1 second", "0.5 seconds", "2 seconds". */
export function secondsText(seconds: number): string {
  return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
}

export function startPollJson(
  view: Pick<ExecutionView, 'taskId' | 'state'>,
  tool: PollTool,
  pollIntervalMs: number,
): StartPollJson {
  const id = view.taskId;
  const state = view.state;
  const { presentation } = tool;
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
    case 'running':
      return runningJson(id, state, tool, pollIntervalMs);
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

/** A running run: input_required while it waits for a person, else running with its progress. */
function runningJson(
  id: string,
  state: Extract<ExecutionState, { status: 'running' }>,
  tool: PollTool,
  pollIntervalMs: number,
): StartPollJson {
  const { presentation, companions } = tool;
  const seconds = pollAfterSeconds(pollIntervalMs);
  if (hasInputRequests(state)) {
    const requests = state.progress?.inputRequests ?? {};
    const answer = companions.respond
      ? `then send their answer with ${companions.respond} (workflow_id "${id}", the request's key, action and content).`
      : 'then tell the person the run waits for them.';
    return {
      status: 'input_required',
      workflow_id: id,
      input_requests: requests,
      poll_after_seconds: seconds,
      next:
        `The run is paused until a person answers input_requests. Ask the user each request's message, ${answer} ` +
        `If nobody can answer now, check again with ${companions.result} in ${secondsText(seconds)} at the soonest.`,
    };
  }
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

export function notFoundJson(workflowId: string, tool: PollTool): StartPollJson {
  return {
    status: 'not_found',
    workflow_id: workflowId,
    next:
      `No ${tool.presentation.noun} has this workflow_id (${namesNoRun(workflowId) ? NO_RUN_NOTE : 'it never existed, has expired, or was copied wrongly'}). ` +
      `Do not poll it again. If the user still wants the work done, call ${tool.name} to start a new run.`,
  };
}

/**
 * The CallToolResult carrying a start/poll JSON: structuredContent plus the same JSON as text. For
 * a tool whose results are MCP tool results, a completed run answers its result as it is, and a
 * tool error as text.
 */
export function toolResult(json: StartPollJson, tool: PollTool): CallToolResult {
  if (tool.resultShape === 'toolResult') {
    if (json.status === 'completed') return passedOnResult(json.result);
    if (json.status === 'failed' && json.reason === TOOL_ERROR_TYPE) {
      return { content: [{ type: 'text', text: json.error.message }], isError: true };
    }
  }
  if (json.status === 'completed') {
    const artifacts = artifactReferences(json.result);
    if (artifacts.length > 0) return artifactResult(json, artifacts, tool);
  }
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
 * A completed run whose result holds artifact references: the JSON (small: the references, not the
 * bytes) with where to read each artifact, and a resource_link block per artifact.
 */
function artifactResult(
  json: Extract<StartPollJson, { status: 'completed' }>,
  artifacts: ArtifactReference[],
  tool: PollTool,
): CallToolResult {
  const id = json.workflow_id;
  const structured = { ...json, artifacts: artifacts.map((ref) => artifactSummary(id, ref)) };
  const isError = tool.presentation.outcome(json.result)?.isError === true;
  return {
    content: [
      { type: 'text', text: JSON.stringify(structured) },
      ...artifacts.map((ref) => resourceLink(id, ref)),
    ],
    structuredContent: structured as unknown as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
  };
}

/** A workflow's result that must be an MCP tool result; anything else is the tool's error, said plainly. */
function passedOnResult(result: unknown): CallToolResult {
  if (isCallToolResult(result) && Array.isArray((result as { content?: unknown }).content)) {
    const { content, structuredContent, isError } = result as CallToolResult;
    return {
      content,
      ...(structuredContent ? { structuredContent } : {}),
      ...(isError ? { isError: true } : {}),
    };
  }
  const text =
    'The workflow returned a result that is not an MCP tool result ({ "content": [...] }), as its catalog ' +
    'entry (resultShape: toolResult) says it must.';
  return { content: [{ type: 'text', text }], isError: true };
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
      did_you_mean: { type: 'string' },
      recent_runs: { type: 'array', items: { type: 'object' } },
      artifacts: { type: 'array', items: { type: 'object' } },
    },
  };
}

/** The CallToolResult of a run as it is now, advising the poll interval that fits it. */
export function startPollAnswer(
  view: Pick<ExecutionView, 'taskId' | 'state'> & { createdAt?: Date },
  tool: PollTool,
  timing: Pick<TaskTiming, 'pollIntervalFor'>,
): CallToolResult {
  return toolResult(startPollJson(view, tool, timing.pollIntervalFor(view)), tool);
}
