// One catalog tool's runs as its MCP tools see them: the caller's run of this tool (no other's),
// answered as start/poll JSON, and the wait that lets an action's outcome come back inline.
import type { Caller, TemporalBackend } from '../temporal/backend.ts';
import type { ExecutionView } from '../temporal/execution.ts';
import { taskIdPrefix } from '../temporal/task-id.ts';
import type { CatalogTool } from './catalog.ts';
import { notFoundJson, startPollJson, startPollOutputSchema, toolResult } from './start-poll.ts';
import type { TaskTiming } from './task-mapping.ts';
import type { ToolCall } from './tools.ts';

export interface ToolRunsDeps {
  backend: TemporalBackend;
  timing: TaskTiming;
}

export class ToolRuns {
  /** Every answer of the tool and its companions is the start/poll JSON: one schema for all. */
  readonly outputSchema: Record<string, unknown>;

  constructor(
    readonly tool: CatalogTool,
    readonly deps: ToolRunsDeps,
  ) {
    this.outputSchema = startPollOutputSchema(tool.outputSchema ?? {});
  }

  answer(view: Pick<ExecutionView, 'workflowId' | 'state'>) {
    return toolResult(startPollJson(view, this.tool, this.deps.timing.pollIntervalMs), this.tool);
  }

  notFound(workflowId: string) {
    return toolResult(notFoundJson(workflowId, this.tool), this.tool);
  }

  /** Whether the id can name a run of this tool (its prefix), before asking Temporal. */
  mayOwn(workflowId: string): boolean {
    return taskIdPrefix(workflowId) === this.tool.idPrefix;
  }

  /** The caller's run of this tool, as it is now; undefined when it is not one. */
  async view(workflowId: string, caller: Caller): Promise<ExecutionView | undefined> {
    if (!this.mayOwn(workflowId)) return undefined;
    const view = await this.deps.backend.view(workflowId, caller, { progressQuery: this.tool.progressQuery });
    return view?.tool === this.tool.name ? view : undefined;
  }

  /** After an action: the result if the run closes within the budget, else its state now. */
  async settle(workflowId: string, { caller, ctx }: ToolCall) {
    const outcome = await this.deps.backend.wait(workflowId, this.tool.waitBudgetMs, ctx.mcpReq.signal);
    if (outcome.kind === 'closed') return this.answer({ workflowId, state: outcome.state });
    const view = await this.view(workflowId, caller);
    return view ? this.answer(view) : this.notFound(workflowId);
  }
}
