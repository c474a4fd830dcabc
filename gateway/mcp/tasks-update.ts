// tasks/update: the caller's answers to its run's input requests, sent on the tool's input signal
// (only those the run asks for now reach its history).
import { invalidParams, taskNotFound } from './errors.ts';
import { boundedResponses, inputResponsesSchema } from './input-rounds.ts';
import type { TaskRequest } from './method-context.ts';
import { emptyAck } from './task-shapes.ts';
import { describeIssues } from './tool-definition.ts';

export async function tasksUpdate({ taskId, params, ctx, caller, deps }: TaskRequest) {
  // The SDK lifts inputResponses out of the params (it shares the multi-round-trip field name).
  const parsed = inputResponsesSchema.safeParse(ctx.mcpReq.inputResponses ?? params.inputResponses);
  if (!parsed.success) throw invalidParams(`Invalid inputResponses: ${describeIssues(parsed.error)}`);
  const tool = deps.catalog.toolOfTask(taskId);
  if (!tool) throw taskNotFound(taskId);
  if (!tool.inputSignal) throw invalidParams(`Tasks of ${tool.name} take no input`);
  const input = {
    signalName: tool.inputSignal,
    responses: boundedResponses(parsed.data),
    ...tool.progress,
  };
  if (!(await deps.actions.sendInput(taskId, caller, input))) throw taskNotFound(taskId);
  return emptyAck();
}
