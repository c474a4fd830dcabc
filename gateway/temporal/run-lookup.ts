// Finding a task's run in Temporal: one describe of the run its id names (its own workflow id, or
// under the running-task cap its slot's workflow id and the run id the start answered with), for the
// run's whole retention. Only a run started by the gateway for a tool whose memo names the caller
// and the task (a second check behind the id's owner tag) is the caller's.
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import type { Caller } from '../shared/caller.ts';
import type { TemporalCalls } from './client.ts';
import { isRunNotFound } from './errors.ts';
import type { RunMemo } from './run-memo.ts';
import type { RunRef } from './run-state.ts';
import { isTaskOfRun, type TaskName, taskIdText, taskRun } from './task-ids.ts';

/** A run the caller owns: its handle, its description and the gateway's memo. */
export interface OwnedRun {
  /** Bound to the run. */
  handle: WorkflowHandle;
  run: RunRef;
  description: WorkflowExecutionDescription;
  memo: RunMemo;
}

export class RunLookup {
  constructor(
    private readonly calls: TemporalCalls,
    private readonly serverSecret: Buffer,
  ) {}

  /**
   * The run's handle (bound to the run) and description when it exists, was started by the gateway
   * for a tool, and its memo names the caller and the task (a second check behind the id's owner tag).
   * A slotted id without a run part (`~`) finds its slot's current run only: its own while it runs.
   */
  async owned(task: TaskName, caller: Caller): Promise<OwnedRun | undefined> {
    const taskId = taskIdText(task);
    const { workflowId, runId } = taskRun(this.serverSecret, caller.principal, task);
    const description = await this.describe(workflowId, runId);
    const memo = description && memoOf(description);
    if (!description || !memo || typeof memo.tool !== 'string' || memo.principal !== caller.principal)
      return undefined;
    if (workflowId !== taskId && !isTaskOfRun(this.serverSecret, caller.principal, task, memo.task))
      return undefined;
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
}

function memoOf(description: WorkflowExecutionDescription): Partial<RunMemo> | undefined {
  return description.memo as Partial<RunMemo> | undefined;
}
