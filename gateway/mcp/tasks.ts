// The task methods of both revisions on the caller's runs, each past its capability and params
// checks (handler.ts, from its declaration in methods.ts). Where the revisions agree one function
// serves both and only the shape differs: tasks/get, the task from one describe of the run (and,
// for a tool whose runs only answer the progress query, that query beside it); tasks/cancel, a
// cancellation request (it cancels the activity in flight; the 2025-11-25 answer waits a moment
// for the run to end so it can say `cancelled`). tasks/update (2026-07-28 only): the caller's
// answers to its run's input requests on the tool's input signal (only those the run asks for now
// reach its history).
import type { Caller } from '../shared/caller.ts';
import type { RunParts } from '../temporal/backend.ts';
import type { ExecutionView } from '../temporal/run-state.ts';
import type { TaskRef } from '../temporal/task-ids.ts';
import type { Catalog, CatalogTool } from './catalog.ts';
import { invalidParams, taskNotFound } from './errors.ts';
import { boundedResponses, inputResponsesSchema } from './input-rounds.ts';
import { legacyTask } from './legacy-task-shapes.ts';
import { type MethodCall, namedTask } from './method-context.ts';
import type { TaskTiming } from './poll-pacing.ts';
import { emptyAck, getTaskResult } from './task-shapes.ts';
import { describeIssues } from './tool-definition.ts';

/** How long a 2025-11-25 tasks/cancel waits for the run to end, so its answer can say `cancelled`. */
const CANCEL_SETTLE_MS = 2_000;

export type TaskParams = { taskId: string };

/** A run as a task method reads it: its view and the catalog tool it is a run of. */
export interface TaskRead {
  view: ExecutionView;
  tool: CatalogTool;
}

/** What reading a run takes: the runs' views and the catalog naming each task's tool. */
export type ReadParts = Pick<RunParts, 'views'> & { catalog: Catalog };

/** The caller's run of `task` (one describe, its progress query beside it when its tool needs one). */
export async function readTask(
  task: TaskRef,
  caller: Caller,
  { views, catalog }: ReadParts,
): Promise<TaskRead> {
  const view = await views.read(task, caller, catalog.toolOfTask(task)?.progress ?? {});
  if (!view) throw taskNotFound(task);
  return { view, tool: catalog.toolOfRun(view.tool) };
}

/** A run read, in the shape of the request's revision. */
function taskShape({ view, tool }: TaskRead, era: MethodCall['era'], timing: TaskTiming) {
  return era === 'modern' ? getTaskResult(view, tool, timing) : legacyTask(view, tool, timing);
}

/** tasks/get, both revisions. */
export function getTask(parts: ReadParts & { timing: TaskTiming }) {
  return async (call: MethodCall<TaskParams>) =>
    taskShape(await readTask(namedTask(call), call.caller, parts), call.era, parts.timing);
}

/** tasks/cancel, both revisions: the 2026-07-28 answer is an acknowledgement, the 2025-11-25 one the task. */
export function cancelTask(parts: ReadParts & Pick<RunParts, 'actions' | 'waits'> & { timing: TaskTiming }) {
  const cancel = async (call: MethodCall<TaskParams>) => {
    const task = namedTask(call);
    const run = await parts.actions.cancel(task, call.caller);
    if (!run) throw taskNotFound(task);
    if (call.era === 'modern') return emptyAck();
    await parts.waits.forResult(run, CANCEL_SETTLE_MS);
    return taskShape(await readTask(task, call.caller, parts), call.era, parts.timing);
  };
  // The 2025-11-25 settle is one of the caller's waits: past them the cancel is refused before it is sent.
  return (call: MethodCall<TaskParams>) =>
    call.era === 'modern' ? cancel(call) : parts.waits.holding(call.caller.principal, () => cancel(call));
}

/** tasks/update (2026-07-28). */
export function updateTask({
  catalog,
  actions,
  waits,
}: Pick<RunParts, 'actions' | 'waits'> & { catalog: Catalog }) {
  return async (call: MethodCall<TaskParams & { inputResponses?: unknown }>) => {
    const task = namedTask(call);
    // The SDK lifts inputResponses out of the params (it shares the multi-round-trip field name).
    const given = call.ctx.mcpReq.inputResponses ?? call.params.inputResponses;
    const parsed = inputResponsesSchema.safeParse(given);
    if (!parsed.success) throw invalidParams(`Invalid inputResponses: ${describeIssues(parsed.error)}`);
    const tool = catalog.toolOfTask(task);
    if (!tool) throw taskNotFound(task);
    if (!tool.inputSignal) throw invalidParams(`Tasks of ${tool.name} take no input`);
    const input = {
      signalName: tool.inputSignal,
      responses: boundedResponses(parsed.data),
      ...tool.progress,
    };
    // The send waits until the run took the answers: one of the caller's waits (wait_limit past them).
    const sent = await waits.holding(call.caller.principal, () =>
      actions.sendInput(task, call.caller, input),
    );
    if (!sent) throw taskNotFound(task);
    return emptyAck();
  };
}
