// respond_to_mining: the start/poll path's tasks/update. Sends a person's answer to one outstanding
// input request of a run (as a workflow signal), then answers with the run's state: the final result
// when the answer lets it finish within the wait budget.
import type { InputRequest } from '../../workflows/contract.ts';
import type { Caller } from '../temporal/mining-backend.ts';
import { invalidParams } from './json-rpc-errors.ts';
import type { MiningToolsDeps } from './mining-tools.ts';
import { notFoundJson, startPollJson, toolResult } from './start-poll.ts';
import { RESPOND_TO_MINING } from './tool-descriptions.ts';
import { respondArgs } from './tool-schemas.ts';
import { defineTool, type ToolDefinition } from './tools.ts';

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

export function respondTool(deps: MiningToolsDeps, caller: Caller): ToolDefinition {
  const { backend, timing } = deps;
  return defineTool({
    name: 'respond_to_mining',
    title: "Answer a mining run's input request",
    description: RESPOND_TO_MINING,
    args: respondArgs,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async ({ workflow_id, key, action, content }, ctx) => {
      const view = await backend.view(workflow_id, caller);
      if (!view) return toolResult(notFoundJson(workflow_id));
      const outstanding = view.state.status === 'running' ? (view.state.progress?.inputRequests ?? {}) : {};
      const request = outstanding[key];
      if (!request) {
        const current = startPollJson(view, timing.pollIntervalMs);
        return {
          ...toolResult({ ...current, note: notOutstanding(key) }),
          isError: true,
        };
      }
      if (action === 'accept') checkFormContent(request, content);
      const sent = await backend.sendInput(workflow_id, caller, {
        [key]: { action, ...(content ? { content } : {}) },
      });
      if (!sent) return toolResult(notFoundJson(workflow_id));
      const after = await backend.view(workflow_id, caller);
      if (!after) return toolResult(notFoundJson(workflow_id));
      const stillAsking =
        after.state.status === 'running' && Object.keys(after.state.progress?.inputRequests ?? {}).length > 0;
      if (after.state.status !== 'running' || stillAsking)
        return toolResult(startPollJson(after, timing.pollIntervalMs));
      // Answered: the run publishes or wraps up now; answer with the result if it comes within the budget.
      const outcome = await backend.wait(workflow_id, deps.waitBudgetMs, ctx.mcpReq.signal);
      if (outcome.kind === 'closed')
        return toolResult(
          startPollJson({ workflowId: workflow_id, state: outcome.state }, timing.pollIntervalMs),
        );
      const latest = await backend.view(workflow_id, caller);
      return latest
        ? toolResult(startPollJson(latest, timing.pollIntervalMs))
        : toolResult(notFoundJson(workflow_id));
    },
  });
}

function notOutstanding(key: string): string {
  return (
    `"${key}" is not an outstanding input request of this run (unknown, already answered or replaced by a newer ` +
    'request); nothing was sent. Use only keys from the latest input_requests.'
  );
}
