// Starts with an idempotency key. The key names a task key (keyedTaskId). Without the running-task
// cap that key is the run's own workflow id, so Temporal keeps one run per key. Under the cap a run's
// workflow id is its slot's (slots.ts), so the key is kept by a record of its own: a small run under
// the key's id (never served by a worker; it times out by itself a second later) whose memo names the
// task, and whose id Temporal never gives twice (REJECT_DUPLICATE, within retention). The task is
// started first, then the record; when another start with the key recorded first (two replicas at
// once), this start's run is terminated before it answers and theirs is answered. A start that finds
// no record first looks for a run already carrying the key (McpTaskId): a start whose gateway died
// before the record, in whichever slot it ran, is answered and recorded, not started twice.
// On one replica, concurrent starts with one key share one start.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Caller } from '../shared/caller.ts';
import type { TemporalCalls } from './client.ts';
import { isClosedMeanwhile, isRunNotFound } from './errors.ts';
import { visibilityString } from './listing.ts';
import { MCP_TASK_ID, type OptionalAttributes } from './optional-attributes.ts';
import type { OwnedRun } from './run-lookup.ts';
import { MCP_PRINCIPAL, principalKeyword } from './run-memo.ts';
import type { RunRef } from './run-state.ts';
import { runTaskId, slotOf } from './task-ids.ts';
import type { RunViews } from './view.ts';

/** The records' task queue: nothing polls it, so a record never runs, it only exists. */
const KEY_TASK_QUEUE = 'mcp-idempotency-keys';
/** The longest a start looks for a run of its key that was never recorded. */
const UNRECORDED_LOOK_MS = 1_000;
/** The records' workflow type (never executed). */
export const KEY_WORKFLOW_TYPE = 'McpIdempotencyKey';

/** A run started for the key: its task id and run. */
interface Started {
  workflowId: string;
  run: RunRef;
}

/** The run a start with the key answers: found (with its memo, to compare arguments), or just started. */
export type KeyedRun = { found: OwnedRun } | { started: Started };

export class KeyedStarts {
  /** key id → the start in progress on this replica (a concurrent one joins it). */
  private readonly inFlight = new Map<string, Promise<KeyedRun>>();

  private readonly calls: TemporalCalls;
  private readonly views: RunViews;

  constructor(
    private readonly deps: {
      calls: TemporalCalls;
      views: RunViews;
      serverSecret: Buffer;
      optionalAttributes: OptionalAttributes;
    },
  ) {
    this.calls = deps.calls;
    this.views = deps.views;
  }

  /**
   * The run the key names (`keyId`), or, when there is none, the one `start` starts. `recorded`:
   * the key is kept by a record (under the cap), else `keyId` is the run's workflow id.
   */
  start(keyId: string, caller: Caller, start: () => Promise<Started>, recorded: boolean): Promise<KeyedRun> {
    const joined = this.inFlight.get(keyId);
    if (joined) return joined;
    const run = (
      recorded ? this.recordedStart(keyId, caller, start) : this.plainStart(keyId, caller, start)
    ).finally(() => this.inFlight.delete(keyId));
    this.inFlight.set(keyId, run);
    return run;
  }

  /** The run under the key's own id: Temporal keeps one (a start there answers the run already there). */
  private async plainStart(keyId: string, caller: Caller, start: () => Promise<Started>): Promise<KeyedRun> {
    const found = await this.views.owned(keyId, caller);
    if (found) return { found };
    try {
      await start();
    } catch (err) {
      // Already there and closed: that run is answered.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    // Read back: a concurrent start with this key may have won with other arguments.
    const run = await this.views.owned(keyId, caller);
    if (!run) throw new Error(`the run ${keyId} was started but cannot be found`);
    return { found: run };
  }

  private async recordedStart(
    keyId: string,
    caller: Caller,
    start: () => Promise<Started>,
  ): Promise<KeyedRun> {
    const found = (await this.recorded(keyId, caller)) ?? (await this.unrecorded(keyId, caller));
    if (found) return { found };
    const started = await start();
    let recordError: unknown;
    try {
      await this.record(keyId, started.workflowId, caller);
      return { started };
    } catch (err) {
      recordError = err;
    }
    const theirs =
      recordError instanceof WorkflowExecutionAlreadyStartedError
        ? await this.recorded(keyId, caller)
        : undefined;
    // Two starts of the key in one slot share one run (the key's request id): the record names it.
    if (theirs && theirs.run.runId === started.run.runId) return { found: theirs };
    // This key recorded by another start meanwhile (or not recorded at all): this run must not stay.
    await this.endDuplicate(started.run).catch(() => {});
    if (!(recordError instanceof WorkflowExecutionAlreadyStartedError)) throw recordError;
    if (!theirs) throw new Error(`the run of idempotency key record ${keyId} cannot be found`);
    return { found: theirs };
  }

  /** The run the key's record names, when there is a record. */
  private async recorded(keyId: string, caller: Caller): Promise<OwnedRun | undefined> {
    const handle = this.calls.client.workflow.getHandle(recordId(keyId));
    try {
      const { memo } = await this.calls.call(() => handle.describe());
      const task = (memo as { task?: unknown } | undefined)?.task;
      return typeof task === 'string' ? await this.views.owned(task, caller) : undefined;
    } catch (err) {
      if (isRunNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * A run of the key's without a record (its start's gateway died before it), found by its McpTaskId
   * and recorded now; undefined when there is none (or the namespace lacks McpTaskId, or visibility
   * did not answer within UNRECORDED_LOOK_MS).
   */
  private async unrecorded(keyId: string, caller: Caller): Promise<OwnedRun | undefined> {
    if (!(await this.deps.optionalAttributes.registered()).has(MCP_TASK_ID.name)) return undefined;
    const { serverSecret } = this.deps;
    const query =
      `${MCP_TASK_ID.name} = ${visibilityString(keyId)} AND ` +
      `${MCP_PRINCIPAL.name} = ${visibilityString(principalKeyword(caller.principal))}`;
    const look = async () => {
      for await (const run of this.calls.client.workflow.list({ query, pageSize: 10 })) {
        const slot = slotOf(serverSecret, caller.principal, run.workflowId);
        if (slot !== undefined) return runTaskId(serverSecret, keyId, { slot, runId: run.runId });
      }
      return undefined;
    };
    // A visibility store that does not answer soon holds no start up: the start goes on without it.
    const listed = await this.calls.call(look, UNRECORDED_LOOK_MS).catch(() => undefined);
    const found = listed && (await this.views.owned(listed, caller));
    if (!found) return undefined;
    try {
      await this.record(keyId, listed, caller);
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return this.recorded(keyId, caller);
    }
    return found;
  }

  private async record(keyId: string, taskId: string, caller: Caller): Promise<void> {
    await this.calls.call(() =>
      this.calls.client.workflow.start(KEY_WORKFLOW_TYPE, {
        workflowId: recordId(keyId),
        taskQueue: KEY_TASK_QUEUE,
        args: [],
        memo: { task: taskId, principal: caller.principal },
        staticSummary: `Idempotency key of ${taskId}`,
        workflowExecutionTimeout: '1s',
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  private async endDuplicate(run: RunRef): Promise<void> {
    try {
      await this.calls.call(() =>
        this.calls.client.workflow
          .getHandle(run.workflowId, run.runId)
          .terminate('another start with the same idempotency key was recorded first'),
      );
    } catch (err) {
      if (!isClosedMeanwhile(err) && !isRunNotFound(err)) throw err;
    }
  }
}

function recordId(keyId: string): string {
  return `mcp-key-${keyId}`;
}
