// A catalog tool's start/poll companions, for clients without tasks: result (poll a run), cancel,
// and respond (answer the run's input request, for tools that take input). Each takes the exact
// workflow_id the start answered with and answers with the start/poll JSON; arguments are zod
// schemas beside their handlers.
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import type { RunRef } from '../temporal/run-state.ts';
import { hasInputRequests } from '../temporal/run-state.ts';
import { type TaskName, taskIdText } from '../temporal/task-ids.ts';
import { holdingWait, toolRunView, waitForRun } from './call-wait.ts';
import type { CatalogTool } from './catalog.ts';
import { cancelDescription, respondDescription, resultDescription } from './descriptions.ts';
import { invalidParams } from './errors.ts';
import { lostHandleJson, recentRunsJson } from './lost-handle.ts';
import {
  notFoundJson,
  startPollAnswer,
  startPollJson,
  startPollOutputSchema,
  toolResult,
} from './start-poll.ts';
import { type ToolCall, type ToolDefinition, type ToolDeps, zodTool } from './tool-definition.ts';

const workflowId = (startTool: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .describe(`The workflow_id returned by ${startTool}, copied exactly. Never invent or alter it.`);

export const workflowIdArgs = (startTool: string) => z.object({ workflow_id: workflowId(startTool) });

const respondArgs = (startTool: string) =>
  z.object({
    workflow_id: workflowId(startTool),
    key: z
      .string()
      .min(1)
      .max(200)
      .describe('The key of the input request being answered, exactly as it appears in input_requests.'),
    action: z
      .enum(['accept', 'decline', 'cancel'])
      .describe(
        '"accept" with the form content, "decline" when the person says no, "cancel" when they dismiss it.',
      ),
    content: z
      .record(z.string().max(100), z.union([z.string().max(1_000), z.number(), z.boolean()]))
      .optional()
      .describe(
        'The person\'s answers to the form fields (for accept), e.g. {"approve": true, "note": "ok"}.',
      ),
  });

/** The content of an accepted form must carry every required field with the requested type. */
function checkFormContent(request: InputRequest, content: Record<string, unknown> | undefined): void {
  if (request.method !== 'elicitation/create') return;
  const { properties, required = [] } = request.params.requestedSchema;
  for (const field of required) {
    if (content?.[field] === undefined)
      throw invalidParams(`content.${field}: required by the input request`);
  }
  for (const [field, value] of Object.entries(content ?? {})) {
    const expected = properties[field]?.type;
    if (!expected) throw invalidParams(`content.${field}: not a field of the input request`);
    const actual = typeof value;
    const fits = expected === 'integer' ? Number.isInteger(value) : actual === expected;
    if (!fits) throw invalidParams(`content.${field}: expected ${expected}, got ${actual}`);
  }
}

function notOutstanding(key: string): string {
  return (
    `"${key}" is not an outstanding input request of this run (unknown, already answered or replaced by a newer ` +
    'request); nothing was sent. Use only keys from the latest input_requests.'
  );
}

/** The companions' view of one tool's runs: what the run is now, and the answers about it. */
class ToolRuns {
  /** Every companion answers with the start/poll JSON: one schema for all of them. */
  readonly outputSchema: Record<string, unknown>;

  constructor(
    readonly tool: CatalogTool,
    readonly deps: ToolDeps,
  ) {
    this.outputSchema = startPollOutputSchema(tool.outputSchema ?? {});
  }

  now(task: TaskName, call: Pick<ToolCall, 'caller'>) {
    return toolRunView(this.deps, this.tool, task, call.caller);
  }

  /**
   * Not found: with the caller's recent runs of the tool (and the one a near-miss id meant), or,
   * when visibility cannot say now, plainly.
   */
  async notFound(task: TaskName, call: Pick<ToolCall, 'caller'>): Promise<CallToolResult> {
    const id = taskIdText(task);
    const recent = await this.deps.recentRuns.latest(call.caller, this.tool.name);
    const json =
      recent && recent.length > 0
        ? lostHandleJson(id, this.tool, recent, call.caller.principal)
        : notFoundJson(id, this.tool);
    return toolResult(json, this.tool);
  }

  /** The run as it is now, or not found. */
  async answerNow(task: TaskName, call: Pick<ToolCall, 'caller'>): Promise<CallToolResult> {
    const now = await this.now(task, call);
    return now ? startPollAnswer(now, this.tool, this.deps.timing) : this.notFound(task, call);
  }

  /** After an action: the result if the run closes within the budget, else its state now. */
  async settle(task: TaskName, run: RunRef, call: ToolCall): Promise<CallToolResult> {
    // A companion's call brings no input rounds: the wait watches for the close only.
    const { rounds: _, ...plain } = call;
    const outcome = await waitForRun(this.tool, this.deps, plain, { task, run });
    if (outcome.kind === 'closed') {
      const closed = { taskId: taskIdText(task), state: outcome.state };
      return startPollAnswer(closed, this.tool, this.deps.timing);
    }
    return this.answerNow(task, call);
  }
}

/** A catalog tool's companions: result, cancel, and respond where it takes input. */
export function companionTools(tool: CatalogTool, deps: ToolDeps): ToolDefinition[] {
  const runs = new ToolRuns(tool, deps);
  const respond = tool.companions.respond && tool.inputSignal ? [respondTool(runs)] : [];
  const list = tool.companions.list ? [listTool(runs)] : [];
  return [resultTool(runs), cancelTool(runs), ...respond, ...list];
}

function resultTool(runs: ToolRuns): ToolDefinition {
  const { tool } = runs;
  return zodTool({
    name: tool.companions.result,
    title: `Check a ${tool.presentation.noun}`,
    description: resultDescription(tool),
    args: workflowIdArgs(tool.name),
    outputSchema: runs.outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: ({ workflow_id }, call) => runs.answerNow(call.named(workflow_id), call),
  });
}

function cancelTool(runs: ToolRuns): ToolDefinition {
  const { tool, deps } = runs;
  return zodTool({
    name: tool.companions.cancel,
    title: `Cancel a ${tool.presentation.noun}`,
    description: cancelDescription(tool),
    args: workflowIdArgs(tool.name),
    outputSchema: runs.outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: ({ workflow_id }, call) =>
      holdingWait(tool, deps, call, async () => {
        const task = call.named(workflow_id);
        const run = await deps.actions.cancel(task, call.caller, tool.idPrefix);
        if (!run) return runs.notFound(task, call);
        // The run ends once the workflow notices (its activity in flight heartbeats): wait, bounded.
        return runs.settle(task, run, call);
      }),
  });
}

function respondTool(runs: ToolRuns): ToolDefinition {
  const { tool, deps } = runs;
  return zodTool({
    name: tool.companions.respond as string,
    title: `Answer a ${tool.presentation.noun}'s input request`,
    description: respondDescription(tool),
    args: respondArgs(tool.name),
    outputSchema: runs.outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    // Whatever its budget, the answer's send waits until the run took it: one of the caller's waits.
    handler: (args, call) => deps.waits.holding(call.caller.principal, () => respond(runs, args, call)),
  });
}

/** Answers one input request of the run; then, as a cancel does, waits for the run, bounded. */
async function respond(
  runs: ToolRuns,
  { workflow_id, key, action, content }: z.infer<ReturnType<typeof respondArgs>>,
  call: ToolCall,
): Promise<CallToolResult> {
  const { tool, deps } = runs;
  const task = call.named(workflow_id);
  const before = await runs.now(task, call);
  if (!before) return runs.notFound(task, call);
  const outstanding = before.state.status === 'running' ? (before.state.progress?.inputRequests ?? {}) : {};
  const request = outstanding[key];
  if (!request) {
    const current = startPollJson(before, tool, deps.timing.pollIntervalFor(before));
    return { ...toolResult({ ...current, note: notOutstanding(key) }, tool), isError: true };
  }
  if (action === 'accept') checkFormContent(request, content);
  const responses = { [key]: { action, ...(content ? { content } : {}) } };
  const signalName = tool.inputSignal as string;
  const run = await deps.actions.sendInput(task, call.caller, { signalName, responses });
  if (!run) return runs.notFound(task, call);
  const after = await runs.now(task, call);
  if (!after) return runs.notFound(task, call);
  if (after.state.status !== 'running' || hasInputRequests(after.state))
    return startPollAnswer(after, tool, deps.timing);
  // Answered: the run goes on or wraps up now; answer with the result if it comes within the budget.
  return runs.settle(task, run, call);
}

const RECENT_RUNS_SCHEMA = {
  type: 'object',
  required: ['recent_runs', 'next'],
  properties: { recent_runs: { type: 'array', items: { type: 'object' } }, next: { type: 'string' } },
};

/** The caller's recent runs of the tool: what a not_found lists, asked for directly. */
function listTool(runs: ToolRuns): ToolDefinition {
  const { tool, deps } = runs;
  return zodTool({
    name: tool.companions.list as string,
    title: `List your recent ${tool.presentation.noun}s`,
    description:
      `Lists your most recent runs of ${tool.name} (at most 5, newest first: workflow_id, summary, status, ` +
      `started_at). Use it to find a workflow_id you lost, instead of starting the work again.`,
    args: z.object({}),
    outputSchema: RECENT_RUNS_SCHEMA,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async handler(_args, call) {
      const recent = await deps.recentRuns.latest(call.caller, tool.name);
      if (!recent) {
        const next = 'The list is not available right now (at most one look a second); try again shortly.';
        return { ...jsonAnswer({ recent_runs: [], next }), isError: true };
      }
      const recent_runs = recentRunsJson(tool, recent, call.caller.principal);
      const next =
        recent_runs.length > 0
          ? 'Use a workflow_id exactly as written here with the result, cancel or respond tool.'
          : `You have no runs of ${tool.name} in retention.`;
      return jsonAnswer({ recent_runs, next });
    },
  });
}

/** A JSON answer: structuredContent and the same JSON as text. */
function jsonAnswer(json: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(json) }], structuredContent: json };
}
