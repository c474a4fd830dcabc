// The answer shapes, from a run as it is now (ExecutionView): the start/poll JSON of the tool
// contract and the CallToolResult carrying it; the Tasks extension's CreateTaskResult and detailed
// task; and how a tool's runs read to people and models (its presentation: the generic one, which
// a catalog entry's hooks may override). Pure.
//
// Task status rules: running → working (input_required when the workflow asks for input);
// completed → completed with the tool result; a tool-level failure → completed with isError;
// cancelled → cancelled; any other failure → failed with a JSON-RPC error.
import { type CallToolResult, type ClientCapabilities, isCallToolResult } from '@modelcontextprotocol/server';
import { type ArtifactReference, type InputRequest, TOOL_ERROR_TYPE } from '../../workflows/mcp-contract.ts';
import { TASKS_EXTENSION } from '../shared/protocol.ts';
import type { ExecutionState, ExecutionView, RunningState } from '../temporal/runs.ts';
import { artifactReferences, artifactSummary, resourceLink } from './artifacts.ts';
import { INTERNAL_ERROR, type JsonRpcErrorObject } from './errors.ts';

// ---- presentation ------------------------------------------------------------------------------

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

/** A failed run's message for people: a tool error's own, or "The <noun> was terminated: …". */
export function failureMessage(state: Extract<ExecutionState, { status: 'failed' }>, noun: string): string {
  return state.toolError ? state.message : `The ${noun} ${state.message}`;
}

/** Whether a running run waits for a person: its progress answer has outstanding input requests. */
export function hasInputRequests(state: ExecutionState): boolean {
  return state.status === 'running' && Object.keys(state.progress?.inputRequests ?? {}).length > 0;
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

// ---- start/poll JSON -----------------------------------------------------------------------------

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
export function passedOnResult(result: unknown): CallToolResult {
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
      artifacts: { type: 'array', items: { type: 'object' } },
    },
  };
}

// ---- Tasks extension shapes -----------------------------------------------------------------------

/** Whether a request may receive a task: its client capabilities declare the Tasks extension. */
export function declaresTasksExtension(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const value = extensions?.[TASKS_EXTENSION];
  return typeof value === 'object' && value !== null;
}

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A run as the interval advice needs it: its state, and its start time when known. */
export type PacedView = Pick<ExecutionView, 'state'> & { createdAt?: Date };

export interface TaskTiming {
  ttlMs: number;
  /** The steady interval: the gateway's own watch of a run for pushed status (push.ts). */
  watchIntervalMs: number;
  /** The interval to advise for a run as it is now (poll-pacing.ts, given the clock and jitter). */
  pollIntervalFor(view: PacedView): number;
}

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

function taskBase(
  view: ExecutionView,
  status: TaskStatus,
  tool: PollTool,
  timing: Pick<TaskTiming, 'ttlMs'>,
  pollIntervalMs: number,
): TaskBase {
  const terminal = status === 'completed' || status === 'failed' || status === 'cancelled';
  const message = tool.presentation.statusMessage(view);
  return {
    taskId: view.workflowId,
    status,
    ...(message ? { statusMessage: message } : {}),
    createdAt: view.createdAt.toISOString(),
    lastUpdatedAt: view.lastUpdatedAt.toISOString(),
    ttlMs: timing.ttlMs,
    ...(terminal ? {} : { pollIntervalMs }),
  };
}

export function taskStatus(view: Pick<ExecutionView, 'state'>): TaskStatus {
  const state = view.state;
  switch (state.status) {
    case 'running':
      return hasInputRequests(state) ? 'input_required' : 'working';
    case 'completed':
      return 'completed';
    case 'failed':
      return state.toolError ? 'completed' : 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}

export function detailedTask(view: ExecutionView, tool: PollTool, timing: TaskTiming): DetailedTask {
  const status = taskStatus(view);
  const state = view.state;
  // One advice per answer: the task's field and any text that names it agree.
  const interval = timing.pollIntervalFor(view);
  const fields = taskBase(view, status, tool, timing, interval);
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
  const task = taskBase(view, taskStatus(view), tool, timing, interval);
  const id = task.taskId;
  const text =
    `Started task ${id} (${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}); the work goes on ` +
    `in the background. Follow it with tasks/get (taskId "${id}"), about every ${secondsText(pollAfterSeconds(interval))}. ` +
    `Without task support, call ${tool.companions.result} with workflow_id "${id}" instead. ` +
    `Do not call ${tool.name} again for this request.`;
  const handle = startPollJson(view, tool, interval) as unknown as Record<string, unknown>;
  return { ...task, resultType: 'task', content: [{ type: 'text', text }], structuredContent: handle };
}

// ---- input-required results (multi-round-trip requests) -------------------------------------------

/** Which capability a client must declare before it may be sent an input request of each method. */
const CAPABILITY_OF: Record<InputRequest['method'], 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The outstanding requests this client can answer: those whose capability it declared. */
export function answerableRequests(
  requests: Record<string, InputRequest>,
  capabilities: ClientCapabilities | undefined,
): Record<string, InputRequest> {
  const declared = (capabilities ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(requests).filter(([, request]) => {
      const capability = CAPABILITY_OF[request.method];
      return (
        capability !== undefined && typeof declared[capability] === 'object' && declared[capability] !== null
      );
    }),
  );
}

export interface InputRequiredAnswer {
  resultType: 'input_required';
  inputRequests: Record<string, InputRequest>;
  /** Names the run; the client echoes it with its answers (signed, bound to the caller). */
  requestState: string;
}

export function inputRequiredAnswer(
  requests: Record<string, InputRequest>,
  requestState: string,
): InputRequiredAnswer {
  return { resultType: 'input_required', inputRequests: requests, requestState };
}

/** tasks/update and tasks/cancel acknowledge with an empty complete result. */
export function emptyAck(): { resultType: 'complete' } {
  return { resultType: 'complete' };
}
