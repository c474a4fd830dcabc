// A catalog tool's start/poll companions, for clients without the Tasks extension: the result
// poll, cancel, and (for tools that take input) respond. Each answers with the start/poll JSON
// and only for the caller's runs of this tool.
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import { respondArgs, workflowIdArgs } from './companion-schemas.ts';
import { invalidParams } from './json-rpc-errors.ts';
import { startPollJson, toolResult } from './start-poll.ts';
import { cancelDescription, respondDescription, resultDescription } from './tool-descriptions.ts';
import type { ToolRuns } from './tool-runs.ts';
import { type ToolDefinition, zodTool } from './tools.ts';

/** The content of an accepted form must carry every required field with the requested type. */
export function checkFormContent(request: InputRequest, content: Record<string, unknown> | undefined): void {
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

export function resultTool(runs: ToolRuns): ToolDefinition {
  const { tool } = runs;
  return zodTool({
    name: tool.companions.result,
    title: `Check a ${tool.presentation.noun}`,
    description: resultDescription(tool),
    args: workflowIdArgs(tool.name),
    outputSchema: runs.outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async handler({ workflow_id }, { caller }) {
      const view = await runs.view(workflow_id, caller);
      return view ? runs.answer(view) : runs.notFound(workflow_id);
    },
  });
}

export function cancelTool(runs: ToolRuns): ToolDefinition {
  const { tool } = runs;
  return zodTool({
    name: tool.companions.cancel,
    title: `Cancel a ${tool.presentation.noun}`,
    description: cancelDescription(tool),
    args: workflowIdArgs(tool.name),
    outputSchema: runs.outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async handler({ workflow_id }, call) {
      if (!runs.mayOwn(workflow_id) || !(await runs.deps.backend.cancel(workflow_id, call.caller)))
        return runs.notFound(workflow_id);
      // The run ends once the workflow notices (its activity in flight heartbeats): wait, bounded.
      return runs.settle(workflow_id, call);
    },
  });
}

/** The respond companion; only for a tool with an input signal and a respond name. */
export function respondTool(runs: ToolRuns, name: string, signal: string): ToolDefinition {
  const { tool } = runs;
  return zodTool({
    name,
    title: `Answer a ${tool.presentation.noun}'s input request`,
    description: respondDescription(tool),
    args: respondArgs(tool.name),
    outputSchema: runs.outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler({ workflow_id, key, action, content }, call) {
      const view = await runs.view(workflow_id, call.caller);
      if (!view) return runs.notFound(workflow_id);
      const outstanding = view.state.status === 'running' ? (view.state.progress?.inputRequests ?? {}) : {};
      const request = outstanding[key];
      if (!request) {
        const current = startPollJson(view, tool, runs.deps.timing.pollIntervalMs);
        return { ...toolResult({ ...current, note: notOutstanding(key) }, tool), isError: true };
      }
      if (action === 'accept') checkFormContent(request, content);
      const responses = { [key]: { action, ...(content ? { content } : {}) } };
      if (!(await runs.deps.backend.sendInput(workflow_id, call.caller, signal, responses)))
        return runs.notFound(workflow_id);
      const after = await runs.view(workflow_id, call.caller);
      if (!after) return runs.notFound(workflow_id);
      const stillAsking =
        after.state.status === 'running' && Object.keys(after.state.progress?.inputRequests ?? {}).length > 0;
      if (after.state.status !== 'running' || stillAsking) return runs.answer(after);
      // Answered: the run goes on or wraps up now; answer with the result if it comes within the budget.
      return runs.settle(workflow_id, call);
    },
  });
}
