// A catalog tool's start: checks the arguments, starts the workflow, waits for it at most the
// tool's budget (reporting progress when asked), then answers in one of three shapes: the result
// inline; a task handle for a request that declared the Tasks extension; otherwise the start/poll
// "running" JSON the companions continue.
import type { ExecutionView } from '../temporal/execution.ts';
import { declaresTasksExtension } from './capabilities.ts';
import { validated } from './json-schema.ts';
import { progressToken, withProgress } from './progress-reporter.ts';
import { requestOrigin } from './request-origin.ts';
import { createTaskResult } from './task-mapping.ts';
import { startDescription } from './tool-descriptions.ts';
import type { ToolRuns } from './tool-runs.ts';
import type { ToolDefinition } from './tools.ts';

export function startTool(runs: ToolRuns): ToolDefinition {
  const { tool } = runs;
  const { backend, timing } = runs.deps;
  const progressQuery = tool.progressQuery;
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: startDescription(tool),
    inputSchema: tool.inputSchema,
    outputSchema: runs.outputSchema,
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
                const view = await runs.view(workflowId, caller);
                return view?.state.status === 'running' ? tool.presentation.progressReport(view) : undefined;
              },
              waiting,
            );
      if (outcome.kind === 'closed') return runs.answer({ workflowId, state: outcome.state });
      // A task handle needs only the run's times (tasks/get reports progress); the start/poll
      // answer carries progress, so it also queries the workflow.
      const asTask = declaresTasksExtension(server.getClientCapabilities());
      if (asTask && started.createdAt) {
        // This call created the run and it was running when the budget ended: nothing to describe.
        const view: ExecutionView = {
          workflowId,
          tool: tool.name,
          createdAt: started.createdAt,
          lastUpdatedAt: started.createdAt,
          arguments: args,
          state: { status: 'running' },
        };
        return createTaskResult(view, tool, timing);
      }
      const view = await backend.view(workflowId, caller, asTask ? {} : { progressQuery });
      if (!view) throw new Error(`the run ${workflowId} was started but cannot be found`);
      // It may have closed between the end of the budget and the describe: answer inline then.
      if (view.state.status !== 'running') return runs.answer(view);
      return asTask ? createTaskResult(view, tool, timing) : runs.answer(view);
    },
  };
}
