// Starting a catalog tool's run: an unguessable task key that names its owner (or, with an
// idempotency key, the run the key names: keyed-start.ts), under the running-task cap in a slot of
// the caller's (slots.ts), and the start itself with the memo, search attributes (McpTaskId: the
// key) and Web UI texts (run-texts.ts) it carries. The task id answered adds the slot and run the
// start got (task-ids.ts). Everything a start does shares one deadline, so an unreachable Temporal
// fails the call within the call timeout.
import { createHmac } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
// The SDK's own way to give a start its request id (marked internal): Temporal answers a start whose
// request id matches the slot's current run with that run.
import { InternalWorkflowStartOptionsSymbol as START_OPTIONS } from '@temporalio/client/lib/internal.js';
import { PROGRESS_MEMO } from '../../workflows/mcp-contract.ts';
import type { Caller } from '../shared/caller.ts';
import type { SecretArguments } from '../shared/secret-arguments.ts';
import { activeTraceCarrier, tracing } from '../shared/tracing.ts';
import type { TemporalCalls } from './client.ts';
import {
  GRPC,
  grpcCode,
  IdempotencyConflictError,
  isTemporalUnavailable,
  NotStartedError,
  StartRefusedError,
  StartUnconfirmedError,
  TemporalUnreachableError,
} from './errors.ts';
import { type FairnessWeights, runPriority } from './fairness.ts';
import { KeyedStarts } from './keyed-start.ts';
import { MCP_TASK_ID, MCP_TASK_STATUS, type OptionalAttributes } from './optional-attributes.ts';
import type { StartRate } from './principal-limits.ts';
import { MCP_PRINCIPAL, MCP_TOOL, principalKeyword, type RunMemo } from './run-memo.ts';
import type { RunRef } from './run-state.ts';
import { runDetails, runSummary } from './run-texts.ts';
import type { RunningTaskSlots } from './slots.ts';
import {
  canonical,
  differingArguments,
  keyedSlotStart,
  keyedTaskId,
  newTaskId,
  parseTaskId,
  runTaskId,
  slotTaskId,
  type TaskRef,
} from './task-ids.ts';
import type { RunViews } from './view.ts';

/** A run to start for a catalog tool. */
export interface StartRequest {
  tool: {
    name: string;
    idPrefix: string;
    workflow: string;
    taskQueue: string;
    /** `published`: the run publishes its progress (its memo is seeded, it carries McpTaskStatus). */
    progressForm?: 'published' | 'query';
    /** Temporal's execution timeout of the run: no run holds its slot of the cap for ever. */
    maxDurationMs?: number;
    /** Temporal's priority key of the tool's runs: 1 first, 5 last (fairness.ts). */
    priority?: number;
  };
  /** The workflow's single argument. */
  input: unknown;
  /** The tool arguments as validated (defaults applied), kept with the run. */
  arguments: Record<string, unknown>;
  /** What the tool's schema marks `writeOnly` (secrets, at any depth): kept with the run only as a keyed digest. */
  secrets?: SecretArguments;
  /**
   * Makes the start idempotent: the same (caller, tool, key) names the same run, which a retried
   * start returns; the same key with other arguments is an invalid-params error.
   */
  idempotencyKey?: string;
  /** One line for the Web UI. */
  summary: string;
}

/** How long a start Temporal did not confirm is looked for before the answer names its id. */
const UNCONFIRMED_LOOK_MS = 1_000;

/** A start's run as the steps of a start make it: its task id as text. */
interface Started {
  /** The task id. */
  workflowId: string;
  /** The run in Temporal. */
  run: RunRef;
  /** When this call created the run; absent when a keyed start answered a run already there. */
  createdAt?: Date;
}

/** A started run as the caller receives it: its task id parsed once, here, where it was made. */
export interface StartedRun extends Omit<Started, 'workflowId'> {
  task: TaskRef;
}

export interface StartDeps {
  calls: TemporalCalls;
  views: RunViews;
  serverSecret: Buffer;
  /** A key of the server secret: secret arguments are kept as digests under it. */
  secretArgumentKey: Buffer;
  slots?: RunningTaskSlots;
  /** Whether runs may carry McpTaskId, and those that publish their progress McpTaskStatus. */
  optionalAttributes: OptionalAttributes;
  /** Starts per second per principal (principal-limits.ts). */
  rate?: StartRate;
  /** Fairness weights per principal (fairness.ts). */
  fairnessWeights?: FairnessWeights;
}

/** One start: the request, for whom, under which task key and workflow id, with the arguments as the memo keeps them. */
interface RunToStart {
  request: StartRequest;
  caller: Caller;
  /** The task's key (task-ids.ts). */
  taskKey: string;
  /** The key, or under the cap its slot's workflow id. */
  workflowId: string;
  /** The slot, under the cap. */
  slot?: number;
  kept: Record<string, unknown>;
  /** Temporal's request id for the start: a keyed start's own in each slot, else a random one. */
  requestId?: string;
}

/** A keyed start's task id (from its key) and the arguments as its memo keeps them, worked out once. */
interface KeyedRun {
  id: string;
  kept: Record<string, unknown>;
}

export class RunStarts {
  private readonly keyedStarts: KeyedStarts;

  constructor(private readonly deps: StartDeps) {
    this.keyedStarts = new KeyedStarts(deps);
  }

  /**
   * Starts a run; resolves once the start is durable. Past the principal's starts per second it is
   * refused before anything is sent (StartRateLimitError).
   */
  run(request: StartRequest, caller: Caller): Promise<StartedRun> {
    const { calls, rate } = this.deps;
    try {
      rate?.take(caller.principal);
    } catch (err) {
      return Promise.reject(err);
    }
    return calls
      .sharingDeadline(calls.options.callTimeoutMs, () =>
        request.idempotencyKey === undefined
          ? this.startNew(request, caller)
          : this.keyed(request, caller, request.idempotencyKey),
      )
      .then(({ workflowId, ...started }) => ({ ...started, task: madeTask(workflowId) }));
  }

  /**
   * A fresh run: under the cap in a free slot of the caller's (slots.ts), without a cap under its
   * task key. A keyed one (`key`) has the key's task key and starts in each slot with the key's
   * request id for that slot (keyedSlotStart).
   */
  private async startNew(request: StartRequest, caller: Caller, key?: KeyedRun): Promise<Started> {
    const { serverSecret, slots } = this.deps;
    const { principal } = caller;
    const kept = key?.kept ?? this.keptArguments(request);
    // Made before anything is sent: a prefix whose ids would not read back is refused here, nothing started.
    const taskKey = key?.id ?? newTaskId(serverSecret, principal, request.tool.idPrefix);
    if (!slots) return this.confirmed({ request, caller, taskKey, workflowId: taskKey, kept });
    const keyed = key === undefined ? undefined : keyedSlotStart(serverSecret, key.id);
    try {
      for await (const { slot, workflowId } of slots.toTry(principal, keyed?.first)) {
        const requestId = keyed?.requestId(slot);
        const started = await this.confirmed({ request, caller, taskKey, workflowId, slot, kept, requestId })
          // Held: Temporal runs one execution of a workflow id at a time; the next slot is tried.
          .catch((err) => {
            if (err instanceof WorkflowExecutionAlreadyStartedError) return undefined;
            throw err;
          });
        if (started) {
          slots.took(principal, slot);
          return started;
        }
      }
      throw new Error('the slots to try ended without a refusal');
    } catch (err) {
      // Temporal did not answer while the slots were looked at (not a start of ours): nothing was started.
      const looking =
        isTemporalUnavailable(err) &&
        !(err instanceof StartUnconfirmedError || err instanceof NotStartedError);
      throw looking ? new NotStartedError(taskKey, err) : err;
    }
  }

  /**
   * Starts the run and confirms it. A start Temporal did not confirm in time may still have been
   * committed: the run is looked for once (on a short deadline of its own) and answered if it is
   * there; otherwise the caller is told its id, never only "try again" (a retry without an
   * idempotency key would start a second run), which a poll finds once Temporal answers.
   */
  private async confirmed(start: RunToStart): Promise<Started> {
    try {
      return await this.startRun(start);
    } catch (err) {
      if (!isTemporalUnavailable(err)) throw err;
      const { calls, views } = this.deps;
      const lookMs = Math.min(UNCONFIRMED_LOOK_MS, calls.options.callTimeoutMs);
      // Under the cap the run id is not known: an id of the key and slot finds it while it runs.
      const { serverSecret } = this.deps;
      const { taskKey, slot, caller } = start;
      const taskId = slot === undefined ? taskKey : slotTaskId(serverSecret, caller.principal, taskKey, slot);
      // The connection was refused before the start could be sent: no run, nothing to look for.
      if (err instanceof TemporalUnreachableError && !err.sent) throw new NotStartedError(taskId, err);
      // Every call of the look shares its deadline.
      const look = () => calls.sharingDeadline(lookMs, () => views.owned(taskId, caller));
      const found = await calls.ownDeadline(look).catch(() => undefined);
      if (found) {
        const workflowId = runTaskId(serverSecret, taskKey, { slot, runId: found.run.runId as string });
        return { workflowId, run: { ...found.run, taskId: workflowId } };
      }
      throw new StartUnconfirmedError(taskId, err);
    }
  }

  /**
   * A start with an idempotency key: the key names the run (keyed-start.ts), a retry answers the
   * run already there (running or closed, no cap applies to answering it), and the same key with
   * other arguments is refused.
   */
  private async keyed(request: StartRequest, caller: Caller, key: string): Promise<Started> {
    const { serverSecret, slots } = this.deps;
    const keyId = keyedTaskId(serverSecret, caller.principal, request.tool, key);
    const kept = this.keptArguments(request);
    const run = await this.keyedStarts.start(
      keyId,
      caller,
      () =>
        slots
          ? this.startNew(request, caller, { id: keyId, kept })
          : this.startRun({ request, caller, taskKey: keyId, workflowId: keyId, kept }, 'USE_EXISTING'),
      slots !== undefined,
    );
    if ('started' in run) return { workflowId: run.started.workflowId, run: run.started.run };
    // A concurrent start with this key may have won with other arguments.
    const differing = differingArguments(run.found.memo.arguments ?? {}, kept);
    if (differing.length > 0) throw new IdempotencyConflictError(key, request.tool.name, differing);
    return { workflowId: run.found.run.taskId ?? run.found.run.workflowId, run: run.found.run };
  }

  /**
   * Starts the run under `workflowId`. Temporal's refusal of what it was given is not "not found"
   * but a start refused.
   */
  private async startRun(run: RunToStart, conflictPolicy?: 'USE_EXISTING'): Promise<Started> {
    const { request, caller, taskKey, workflowId, slot, kept, requestId } = run;
    const { tool } = request;
    const createdAt = new Date();
    const publishes = tool.progressForm === 'published';
    const memo: RunMemo = {
      tool: tool.name,
      // Under a slot, the task the run is: the slot's later runs are other tasks.
      ...(slot === undefined ? {} : { task: taskKey }),
      createdAt: createdAt.toISOString(),
      arguments: kept,
      principal: caller.principal,
      ...(caller.origin ? { origin: caller.origin } : {}),
      // Later polls and pushes link to the start's trace (tracing on only).
      ...(tracing ? { trace: activeTraceCarrier() } : {}),
      // The run's own key, there from the start: a run without it is one that never publishes.
      ...(publishes ? { [PROGRESS_MEMO]: {} } : {}),
    };
    const registered = await this.deps.optionalAttributes.registered();
    const withStatus = publishes && registered.has(MCP_TASK_STATUS.name);
    let runId: string;
    try {
      const handle = await this.deps.calls.call(() =>
        this.deps.calls.client.workflow.start(tool.workflow, {
          workflowId,
          taskQueue: tool.taskQueue,
          args: [request.input],
          memo: { ...memo },
          typedSearchAttributes: [
            { key: MCP_TOOL, value: tool.name },
            { key: MCP_PRINCIPAL, value: principalKeyword(caller.principal) },
            ...(registered.has(MCP_TASK_ID.name) ? [{ key: MCP_TASK_ID, value: taskKey }] : []),
            ...(withStatus ? [{ key: MCP_TASK_STATUS, value: 'working' }] : []),
          ],
          staticSummary: runSummary(request.summary),
          staticDetails: runDetails({ ...memo, origin: caller.origin }),
          ...idPolicies(slot !== undefined, conflictPolicy),
          ...(tool.maxDurationMs ? { workflowExecutionTimeout: tool.maxDurationMs } : {}),
          priority: runPriority(caller.principal, this.deps.fairnessWeights, tool.priority),
          ...(requestId ? { [START_OPTIONS]: { requestId } } : {}),
        }),
      );
      runId = handle.firstExecutionRunId;
    } catch (err) {
      if (grpcCode(err) === GRPC.INVALID_ARGUMENT) throw new StartRefusedError(err);
      throw err;
    }
    const taskId = runTaskId(this.deps.serverSecret, taskKey, { slot, runId });
    const started = { workflowId: taskId, run: { workflowId, runId, taskId } };
    // With USE_EXISTING the run may be an older one: its creation time is not ours to tell.
    return conflictPolicy ? started : { ...started, createdAt };
  }

  /**
   * The arguments as the memo and the Web UI keep them: each secret (at any depth) as a digest keyed
   * by the server secret (a retry with the same key can still be compared, the value cannot be read
   * or guessed).
   */
  private keptArguments(request: StartRequest): Record<string, unknown> {
    const { secrets } = request;
    if (!secrets) return request.arguments;
    return secrets.replaced(request.arguments, (value) => {
      const digest = createHmac('sha256', this.deps.secretArgumentKey)
        .update(JSON.stringify(canonical(value)) ?? '')
        .digest('hex')
        .slice(0, 32);
      return `[secret hmac-sha256:${digest}]`;
    });
  }
}

/**
 * A slot is taken by starting in it (FAIL while a run holds it, a new run once it has ended). A
 * keyed start without the cap returns a running run with its id as is, and never replaces a closed
 * one (the start fails and the existing run is answered instead).
 */
function idPolicies(slotted: boolean, conflictPolicy?: 'USE_EXISTING') {
  if (slotted) return { workflowIdConflictPolicy: 'FAIL', workflowIdReusePolicy: 'ALLOW_DUPLICATE' } as const;
  if (conflictPolicy)
    return { workflowIdConflictPolicy: conflictPolicy, workflowIdReusePolicy: 'REJECT_DUPLICATE' } as const;
  return {};
}

/** A task id a start made, parsed: the one place its text becomes the value the call goes on with. */
function madeTask(taskId: string): TaskRef {
  const task = parseTaskId(taskId);
  if (!task) throw new Error('a task id this gateway made does not parse');
  return task;
}
