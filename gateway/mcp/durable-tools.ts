// A catalog tool as MCP tools: the start tool and its start/poll companions (result, cancel,
// respond). The start waits for the run at most the tool's budget, then answers in one of three
// shapes: the result inline; a task handle for a request that declared the Tasks extension;
// otherwise the start/poll "running" JSON the companions continue.
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import type { TemporalBackend } from '../temporal/backend.ts';
import type { ExecutionView } from '../temporal/execution.ts';
import { taskIdPrefix } from '../temporal/task-id.ts';
import { declaresTasksExtension } from './capabilities.ts';
import type { CatalogTool } from './catalog.ts';
import { respondArgs, workflowIdArgs } from './companion-schemas.ts';
import { invalidParams } from './json-rpc-errors.ts';
import { validated } from './json-schema.ts';
import { progressToken, withProgress } from './progress-reporter.ts';
import { requestOrigin } from './request-origin.ts';
import { notFoundJson, startPollJson, startPollOutputSchema, toolResult } from './start-poll.ts';
import { createTaskResult, type TaskTiming } from './task-mapping.ts';
import {
  cancelDescription,
  respondDescription,
  resultDescription,
  startDescription,
} from './tool-descriptions.ts';
import { type ToolCall, type ToolDefinition, zodTool } from './tools.ts';

export interface DurableToolDeps {
  backend: TemporalBackend;
  timing: TaskTiming;
}

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

export function durableTools(tool: CatalogTool, deps: DurableToolDeps): ToolDefinition[] {
  const { backend, timing } = deps;
  const answer = (view: Pick<ExecutionView, 'workflowId' | 'state'>) =>
    toolResult(startPollJson(view, tool, timing.pollIntervalMs), tool);
  const notFound = (workflowId: string) => toolResult(notFoundJson(workflowId, tool), tool);
  const progressQuery = tool.progressQuery;
  // Every answer of the tool and its companions is the start/poll JSON: one schema for all of them.
  const outputSchema = { outputSchema: startPollOutputSchema(tool.outputSchema ?? {}) };

  /** The caller's run of this tool, as it is now; undefined when it is not one. */
  const viewOwn = async (workflowId: string, caller: ToolCall['caller']) => {
    if (taskIdPrefix(workflowId) !== tool.idPrefix) return undefined;
    const view = await backend.view(workflowId, caller, { progressQuery });
    return view?.tool === tool.name ? view : undefined;
  };

  /** After an action: the result if the run closes within the budget, else its state now. */
  const settle = async (workflowId: string, { caller, ctx }: ToolCall) => {
    const outcome = await backend.wait(workflowId, tool.waitBudgetMs, ctx.mcpReq.signal);
    if (outcome.kind === 'closed') return answer({ workflowId, state: outcome.state });
    const view = await viewOwn(workflowId, caller);
    return view ? answer(view) : notFound(workflowId);
  };

  const start: ToolDefinition = {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: startDescription(tool),
    inputSchema: tool.inputSchema,
    ...outputSchema,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    parse: (raw) => validated<Record<string, unknown>>(tool.validateArguments, raw),
    async handler(args, { server, ctx, caller }) {
      const keyArgument = tool.idempotencyKeyArgument;
      const key = keyArgument ? args[keyArgument] : undefined;
      const started = await backend.start(
        {
          tool,
          input: tool.presentation.workflowInput(args, keyArgument),
          arguments: args,
          ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
          summary: tool.presentation.summary(tool.name, args, caller.principal),
        },
        { ...caller, origin: requestOrigin(server, ctx) },
      );
      const { workflowId } = started;
      const waiting = backend.wait(workflowId, tool.waitBudgetMs, ctx.mcpReq.signal);
      const token = progressToken(ctx);
      const outcome =
        token === undefined
          ? await waiting
          : await withProgress(
              ctx,
              token,
              { progress: 0, message: `Started ${tool.name}; waiting for the result` },
              async () => {
                const view = await backend.view(workflowId, caller, { progressQuery });
                return view?.state.status === 'running' ? tool.presentation.progressReport(view) : undefined;
              },
              waiting,
            );
      if (outcome.kind === 'closed') return answer({ workflowId, state: outcome.state });
      // A task handle needs only the run's times (tasks/get reports progress); the start/poll
      // answer carries progress, so it also queries the workflow.
      const asTask = declaresTasksExtension(server.getClientCapabilities());
      if (asTask && started.createdAt) {
        // This call created the run and it was running when the budget ended: nothing to describe.
        const view: ExecutionView = {
          workflowId,
          tool: tool.name,
          createdAt: started.createdAt,
          lastUpdatedAt: new Date(),
          arguments: args,
          state: { status: 'running' },
        };
        return createTaskResult(view, tool, timing);
      }
      const view = await backend.view(workflowId, caller, asTask ? {} : { progressQuery });
      if (!view) throw new Error(`the run ${workflowId} was started but cannot be found`);
      // It may have closed between the end of the budget and the describe: answer inline then.
      if (view.state.status !== 'running') return answer(view);
      return asTask ? createTaskResult(view, tool, timing) : answer(view);
    },
  };

  const result = zodTool({
    name: tool.companions.result,
    title: `Check a ${tool.presentation.noun}`,
    description: resultDescription(tool),
    args: workflowIdArgs(tool.name),
    ...outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async handler({ workflow_id }, { caller }) {
      const view = await viewOwn(workflow_id, caller);
      return view ? answer(view) : notFound(workflow_id);
    },
  });

  const cancel = zodTool({
    name: tool.companions.cancel,
    title: `Cancel a ${tool.presentation.noun}`,
    description: cancelDescription(tool),
    args: workflowIdArgs(tool.name),
    ...outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async handler({ workflow_id }, call) {
      if (taskIdPrefix(workflow_id) !== tool.idPrefix || !(await backend.cancel(workflow_id, call.caller)))
        return notFound(workflow_id);
      // The run ends once the workflow notices (its activity in flight heartbeats): wait, bounded.
      return settle(workflow_id, call);
    },
  });

  const tools = [start, result, cancel];
  const { respond } = tool.companions;
  const signal = tool.inputSignal;
  if (respond && signal) {
    tools.push(
      zodTool({
        name: respond,
        title: `Answer a ${tool.presentation.noun}'s input request`,
        description: respondDescription(tool),
        args: respondArgs(tool.name),
        ...outputSchema,
        annotations: {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        async handler({ workflow_id, key, action, content }, call) {
          const view = await viewOwn(workflow_id, call.caller);
          if (!view) return notFound(workflow_id);
          const outstanding =
            view.state.status === 'running' ? (view.state.progress?.inputRequests ?? {}) : {};
          const request = outstanding[key];
          if (!request) {
            const current = startPollJson(view, tool, timing.pollIntervalMs);
            return { ...toolResult({ ...current, note: notOutstanding(key) }, tool), isError: true };
          }
          if (action === 'accept') checkFormContent(request, content);
          const responses = { [key]: { action, ...(content ? { content } : {}) } };
          if (!(await backend.sendInput(workflow_id, call.caller, signal, responses)))
            return notFound(workflow_id);
          const after = await viewOwn(workflow_id, call.caller);
          if (!after) return notFound(workflow_id);
          const stillAsking =
            after.state.status === 'running' &&
            Object.keys(after.state.progress?.inputRequests ?? {}).length > 0;
          if (after.state.status !== 'running' || stillAsking) return answer(after);
          // Answered: the run goes on or wraps up now; answer with the result if it comes within the budget.
          return settle(workflow_id, call);
        },
      }),
    );
  }
  return tools;
}
