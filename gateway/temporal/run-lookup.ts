// Finding a task's run in Temporal: one describe of the workflow its id names (its own, or under
// the running-task cap its slot's). A task under the cap is its slot's current run while it runs;
// once a later task holds the slot, the task's run is found among the slot's runs in visibility (a
// closed run, long since listed). Only a run started by the gateway for a tool whose memo names the
// caller (a second check behind the id's owner tag) is the caller's.
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import type { TemporalCalls } from './client.ts';
import { isRunNotFound } from './errors.ts';
import type { Caller, RunMemo } from './run-memo.ts';
import type { RunRef } from './run-state.ts';
import { taskWorkflowId } from './task-ids.ts';

/** A run the caller owns: its handle, its description and the gateway's memo. */
export interface OwnedRun {
  /** Bound to the run. */
  handle: WorkflowHandle;
  run: RunRef;
  description: WorkflowExecutionDescription;
  memo: RunMemo;
}

/** A slot's runs looked at in visibility for a task's closed run, newest first. */
const EARLIER_RUNS_LOOKED_AT = 1_000;

export class RunLookup {
  constructor(
    private readonly calls: TemporalCalls,
    private readonly serverSecret: Buffer,
  ) {}

  /**
   * The run's handle (bound to the run) and description when it exists, was started by the gateway
   * for a tool, and its memo names the caller (a second check behind the id's owner tag). A task
   * under the cap is its slot's current run while it runs; once a later task holds the slot, the
   * task's run is found among the slot's runs in visibility.
   */
  async owned(taskId: string, caller: Caller): Promise<OwnedRun | undefined> {
    const workflowId = taskWorkflowId(this.serverSecret, caller.principal, taskId);
    let description = await this.describe(workflowId);
    if (description && workflowId !== taskId && memoOf(description)?.task !== taskId)
      description = await this.earlierRun(workflowId, taskId);
    const memo = description && memoOf(description);
    if (!description || !memo || typeof memo.tool !== 'string' || memo.principal !== caller.principal)
      return undefined;
    if (workflowId !== taskId && memo.task !== taskId) return undefined;
    const handle = this.calls.client.workflow.getHandle(workflowId, description.runId);
    const run = { workflowId, runId: description.runId, taskId };
    return { handle, run, description, memo: memo as RunMemo };
  }

  private async describe(
    workflowId: string,
    runId?: string,
  ): Promise<WorkflowExecutionDescription | undefined> {
    const handle = this.calls.client.workflow.getHandle(workflowId, runId);
    try {
      return await this.calls.call(() => handle.describe());
    } catch (err) {
      if (isRunNotFound(err)) return undefined;
      throw err;
    }
  }

  /** The slot's run that was `taskId` (it has closed), from visibility, within one deadline. */
  private async earlierRun(
    workflowId: string,
    taskId: string,
  ): Promise<WorkflowExecutionDescription | undefined> {
    const runId = await this.calls.call(async () => {
      let looked = 0;
      const runs = this.calls.client.workflow.list({ query: `WorkflowId = "${workflowId}"`, pageSize: 100 });
      for await (const run of runs) {
        if ((run.memo as Partial<RunMemo> | undefined)?.task === taskId) return run.runId;
        if (++looked >= EARLIER_RUNS_LOOKED_AT) return undefined;
      }
      return undefined;
    });
    return runId ? this.describe(workflowId, runId) : undefined;
  }
}

function memoOf(description: WorkflowExecutionDescription): Partial<RunMemo> | undefined {
  return description.memo as Partial<RunMemo> | undefined;
}
