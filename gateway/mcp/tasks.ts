// The Tasks extension's methods on the caller's runs, each past its capability and params checks
// (handler.ts): tasks/get, the detailed task from one describe of the run (and, for a tool whose
// runs only answer the progress query, that query beside it); tasks/update, the caller's answers to
// its run's input requests on the tool's input signal (only those the run asks for now reach its
// history); tasks/cancel, a cancellation request (it cancels the activity in flight).
import { invalidParams, taskNotFound } from './errors.ts';
import { boundedResponses, inputResponsesSchema } from './input-rounds.ts';
import type { TaskRequest } from './method-context.ts';
import { emptyAck, type GetTaskResult, getTaskResult } from './task-shapes.ts';
import { describeIssues } from './tool-definition.ts';

export async function tasksGet({ taskId, task, caller, deps }: TaskRequest): Promise<GetTaskResult> {
  const { views, catalog, timing } = deps;
  // The id names its tool, so its progress query (if it needs one) goes out beside the describe.
  const view = await views.read(task, caller, catalog.toolOfTask(task)?.progress ?? {});
  if (!view) throw taskNotFound(taskId);
  return getTaskResult(view, catalog.toolOfRun(view.tool), timing);
}

export async function tasksUpdate({ taskId, task, params, ctx, caller, deps }: TaskRequest) {
  // The SDK lifts inputResponses out of the params (it shares the multi-round-trip field name).
  const parsed = inputResponsesSchema.safeParse(ctx.mcpReq.inputResponses ?? params.inputResponses);
  if (!parsed.success) throw invalidParams(`Invalid inputResponses: ${describeIssues(parsed.error)}`);
  const tool = deps.catalog.toolOfTask(task);
  if (!tool) throw taskNotFound(taskId);
  if (!tool.inputSignal) throw invalidParams(`Tasks of ${tool.name} take no input`);
  const input = {
    signalName: tool.inputSignal,
    responses: boundedResponses(parsed.data),
    ...tool.progress,
  };
  // The send waits until the run took the answers: one of the caller's waits (wait_limit past them).
  const sent = await deps.waits.holding(caller.principal, () => deps.actions.sendInput(task, caller, input));
  if (!sent) throw taskNotFound(taskId);
  return emptyAck();
}

export async function tasksCancel({ taskId, task, caller, deps }: TaskRequest) {
  if (!(await deps.actions.cancel(task, caller))) throw taskNotFound(taskId);
  return emptyAck();
}
