// The steps of a start, apart from the Temporal calls themselves: the per-principal cap on running
// tasks, and for a start with an idempotency key, the keyed task id, the lookup of the run already
// there and the check that it was started with the same arguments.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { idempotencyConflict, runningTaskLimit } from '../mcp/json-rpc-errors.ts';
import type { Caller, StartedRun, StartRequest } from './backend.ts';
import { differingArguments, keyedTaskId } from './idempotency.ts';

export interface StartSteps {
  secret: Buffer;
  /** The caller's run with this id and the arguments it was started with; undefined if none. */
  describe(workflowId: string): Promise<{ memo: { arguments: Record<string, unknown> } } | undefined>;
  countRunning(principal: string): Promise<number>;
  /** 0: no cap. */
  maxRunning: number;
  /** Starts the run; with an id and USE_EXISTING for a keyed start, a fresh random id otherwise. */
  start(workflowId?: string, conflictPolicy?: 'USE_EXISTING'): Promise<StartedRun>;
}

async function enforceCap(caller: Caller, steps: StartSteps): Promise<void> {
  if (steps.maxRunning <= 0) return;
  const running = await steps.countRunning(caller.principal);
  if (running >= steps.maxRunning) throw runningTaskLimit(caller.principal, running, steps.maxRunning);
}

export async function startIdempotent(
  request: StartRequest,
  caller: Caller,
  steps: StartSteps,
): Promise<StartedRun> {
  const key = request.idempotencyKey;
  if (key === undefined) {
    await enforceCap(caller, steps);
    return steps.start();
  }
  const workflowId = keyedTaskId(steps.secret, caller.principal, request.tool, key);
  const sameArguments = (run: { memo: { arguments: Record<string, unknown> } }) => {
    const differing = differingArguments(run.memo.arguments ?? {}, request.arguments);
    if (differing.length > 0) throw idempotencyConflict(key, request.tool.name, differing);
  };

  // A retry: the run is there already (running or closed); no cap applies to answering it.
  const existing = await steps.describe(workflowId);
  if (existing) {
    sameArguments(existing);
    return { workflowId };
  }
  await enforceCap(caller, steps);
  try {
    await steps.start(workflowId, 'USE_EXISTING');
  } catch (err) {
    // A concurrent start with this key created the run and it closed meanwhile: answer that run.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  // A concurrent start with this key may have won with other arguments: check the run we got.
  const started = await steps.describe(workflowId);
  if (!started) throw new Error(`the run ${workflowId} was started but cannot be found`);
  sameArguments(started);
  return { workflowId };
}
