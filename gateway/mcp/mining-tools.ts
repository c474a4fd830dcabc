// start_mining, get_mining_result and cancel_mining. start_mining waits for the run at most the
// budget, then answers in one of three shapes: the result inline; a task handle for a request that
// declared the Tasks extension; otherwise the start/poll "running" JSON.
import type { Server } from '@modelcontextprotocol/server';
import type { ExecutionView } from '../temporal/execution.ts';
import type { Caller, MiningBackend } from '../temporal/mining-backend.ts';
import type { ApprovalPolicy } from './approval-policy.ts';
import { declaresTasksExtension } from './capabilities.ts';
import { requestOrigin } from './request-origin.ts';
import { respondTool } from './respond-tool.ts';
import { notFoundJson, startPollJson, toolResult } from './start-poll.ts';
import { createTaskResult, type TaskTiming } from './task-mapping.ts';
import { CANCEL_MINING, GET_MINING_RESULT, START_MINING } from './tool-descriptions.ts';
import { mineChainInput, startMiningArgs, workflowIdArgs } from './tool-schemas.ts';
import { defineTool, type ToolDefinition } from './tools.ts';

export interface MiningToolsDeps {
  backend: MiningBackend;
  waitBudgetMs: number;
  timing: TaskTiming;
  approval?: ApprovalPolicy;
}

export function miningTools(server: Server, deps: MiningToolsDeps, caller: Caller): ToolDefinition[] {
  const { backend, timing } = deps;
  const answer = (view: Pick<ExecutionView, 'workflowId' | 'state'>) =>
    toolResult(startPollJson(view, timing.pollIntervalMs));

  const startMining = defineTool({
    name: 'start_mining',
    title: 'Start mining a proof-of-work chain',
    description: START_MINING,
    args: startMiningArgs,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (args, ctx) => {
      const input = mineChainInput(args, deps.approval);
      const started = await backend.start(
        {
          input,
          tool: 'start_mining',
          arguments: args,
          idempotencyKey: args.idempotency_key,
        },
        { ...caller, origin: requestOrigin(server, ctx) },
      );
      const { workflowId } = started;
      const outcome = await backend.wait(workflowId, deps.waitBudgetMs, ctx.mcpReq.signal);
      if (outcome.kind === 'closed') return answer({ workflowId, state: outcome.state });
      // A task handle needs only the run's times (tasks/get reports progress); the start/poll
      // answer carries progress, so it also queries the workflow.
      const asTask = declaresTasksExtension(server.getClientCapabilities());
      if (asTask && started.createdAt) {
        // This call created the run and it was running when the budget ended: nothing to describe.
        const { createdAt } = started;
        const state = { status: 'running' } as const;
        return createTaskResult({ workflowId, createdAt, lastUpdatedAt: new Date(), input, state }, timing);
      }
      const view = await backend.view(workflowId, caller, { progress: !asTask });
      if (!view) throw new Error(`the run ${workflowId} was started but cannot be found`);
      // It may have closed between the end of the budget and the describe: answer inline then.
      if (view.state.status !== 'running') return answer(view);
      return asTask ? createTaskResult(view, timing) : answer(view);
    },
  });

  const getMiningResult = defineTool({
    name: 'get_mining_result',
    title: 'Check a mining run',
    description: GET_MINING_RESULT,
    args: workflowIdArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async ({ workflow_id }) => {
      const view = await backend.view(workflow_id, caller);
      return view ? answer(view) : toolResult(notFoundJson(workflow_id));
    },
  });

  const cancelMining = defineTool({
    name: 'cancel_mining',
    title: 'Cancel a mining run',
    description: CANCEL_MINING,
    args: workflowIdArgs,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async ({ workflow_id }, ctx) => {
      if (!(await backend.cancel(workflow_id, caller))) return toolResult(notFoundJson(workflow_id));
      // The run ends once its block in flight notices (about a second): wait for that, bounded.
      const outcome = await backend.wait(workflow_id, deps.waitBudgetMs, ctx.mcpReq.signal);
      if (outcome.kind === 'closed') return answer({ workflowId: workflow_id, state: outcome.state });
      const view = await backend.view(workflow_id, caller);
      return view ? answer(view) : toolResult(notFoundJson(workflow_id));
    },
  });

  return [startMining, getMiningResult, cancelMining, respondTool(deps, caller)];
}
