// MiningBackend on Temporal: start → workflow.start, wait → handle.result() raced against the
// budget (the long-poll is aborted when the budget ends), view → describe and, side by side, the
// progress query with a short deadline, cancel → cancellation request, sendInput → signal. Every
// operation on a task first checks its id's owner tag (task-id.ts): no Temporal call for an id that
// is not the caller's.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Client,
  isGrpcServiceError,
  QueryRejectedError,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  defaultPayloadConverter,
  defineSearchAttributeKey,
  type Payload,
  SearchAttributeType,
} from '@temporalio/common';
import {
  type ChainResult,
  type InputResponse,
  inputResponsesSignal,
  MINE_CHAIN_WORKFLOW,
  type MineBlockHeartbeat,
  type MineChainInput,
  progressQuery,
} from '../../workflows/contract.ts';
import type { GatewayConfig } from '../config.ts';
import type { RequestOrigin } from '../mcp/request-origin.ts';
import { metrics } from '../metrics.ts';
import { withHardDeadline } from './deadline.ts';
import type { ExecutionState, ExecutionView, LiveProgress } from './execution.ts';
import type { Caller, MiningBackend, StartedRun, StartRequest, WaitOutcome } from './mining-backend.ts';
import { completedState, stateFromResultError } from './outcome.ts';
import { runDetails, runSummary } from './run-summary.ts';
import { startIdempotent } from './start.ts';
import { isOwnedBy, newTaskId } from './task-id.ts';

export const MCP_TOOL = defineSearchAttributeKey('McpTool', SearchAttributeType.KEYWORD);
export const MCP_PRINCIPAL = defineSearchAttributeKey('McpPrincipal', SearchAttributeType.KEYWORD);

/** What the gateway stores in a run's memo. */
export interface RunMemo {
  tool: string;
  arguments: Record<string, unknown>;
  principal: string;
  input: MineChainInput;
  /** The MCP client and protocol revision that started the run. */
  origin?: RequestOrigin;
}

export interface TemporalMiningOptions {
  taskQueue: string;
  namespace: string;
  /** Deadline of start, describe, result fetch, signal and cancel calls. */
  callTimeoutMs: number;
  /** Deadline of the progress query (a worker must answer it). */
  queryTimeoutMs: number;
  /** Keys task ids' owner tags and idempotent task ids (HMAC). */
  serverSecret: Buffer;
  /** Running tasks one principal may have at once; 0 or absent: no cap. */
  maxRunningTasks?: number;
}

/** The backend options a gateway configuration implies. */
export function miningOptions(config: GatewayConfig, serverSecret: Buffer): TemporalMiningOptions {
  return {
    taskQueue: config.temporal.taskQueue,
    namespace: config.temporal.namespace,
    callTimeoutMs: config.temporalTimeoutMs,
    queryTimeoutMs: config.queryTimeoutMs,
    serverSecret,
    maxRunningTasks: config.maxRunningTasks,
  };
}

// gRPC codes Temporal answers for ids that name no run it can find.
const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;
const FAILED_PRECONDITION = 9;

export class TemporalMining implements MiningBackend {
  constructor(
    private readonly client: Client,
    private readonly options: TemporalMiningOptions,
  ) {}

  /** A deadline shared by several calls (a start's checks and the start itself). */
  private readonly sharedDeadline = new AsyncLocalStorage<number>();

  private call<T>(fn: () => Promise<T>, timeoutMs = this.options.callTimeoutMs): Promise<T> {
    const own = Date.now() + timeoutMs;
    const shared = this.sharedDeadline.getStore();
    const deadline = shared === undefined ? own : Math.min(own, shared);
    return withHardDeadline(deadline, (signal) =>
      this.client.withAbortSignal(signal, () => this.client.withDeadline(deadline, fn)),
    );
  }

  /**
   * Starts a run. Everything a start does (the idempotency lookup, the running-task count, the
   * start) shares one deadline, so an unreachable Temporal fails the call within callTimeoutMs.
   */
  start(request: StartRequest, caller: Caller): Promise<StartedRun> {
    return this.sharedDeadline.run(Date.now() + this.options.callTimeoutMs, () =>
      startIdempotent(request, caller, {
        secret: this.options.serverSecret,
        describe: (workflowId) => this.describeOwned(workflowId, caller),
        countRunning: (principal) => this.countRunning(principal),
        maxRunning: this.options.maxRunningTasks ?? 0,
        start: (workflowId, conflictPolicy) => this.startRun(request, caller, workflowId, conflictPolicy),
      }),
    );
  }

  /** Running mining runs of this principal, from Temporal's visibility store. */
  private async countRunning(principal: string): Promise<number> {
    const query =
      `WorkflowType = "${MINE_CHAIN_WORKFLOW}" AND ExecutionStatus = "Running" AND ` +
      `${MCP_PRINCIPAL.name} = ${JSON.stringify(principal)}`;
    const { count } = await this.call(() => this.client.workflow.count(query));
    return count;
  }

  private async startRun(
    request: StartRequest,
    caller: Caller,
    workflowId = newTaskId(this.options.serverSecret, caller.principal),
    conflictPolicy?: 'USE_EXISTING',
  ): Promise<StartedRun> {
    const { input } = request;
    const createdAt = new Date();
    const memo: RunMemo = {
      tool: request.tool,
      arguments: request.arguments,
      principal: caller.principal,
      input,
      ...(caller.origin ? { origin: caller.origin } : {}),
    };
    const described = { ...request, principal: caller.principal, origin: caller.origin };
    await this.call(() =>
      this.client.workflow.start(MINE_CHAIN_WORKFLOW, {
        workflowId,
        taskQueue: this.options.taskQueue,
        args: [input],
        memo: memo as unknown as Record<string, unknown>,
        typedSearchAttributes: [
          { key: MCP_TOOL, value: request.tool },
          { key: MCP_PRINCIPAL, value: caller.principal },
        ],
        staticSummary: runSummary(described),
        staticDetails: runDetails(described),
        // A keyed start: a running run with this id is returned as is, and a closed one is never
        // replaced by a second run (the start fails and the existing run is answered instead).
        ...(conflictPolicy
          ? { workflowIdConflictPolicy: conflictPolicy, workflowIdReusePolicy: 'REJECT_DUPLICATE' as const }
          : {}),
      }),
    );
    // With USE_EXISTING the run may be an older one: its creation time is not ours to tell.
    return conflictPolicy ? { workflowId } : { workflowId, createdAt };
  }

  async wait(workflowId: string, budgetMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    if (budgetMs <= 0 || signal?.aborted) return { kind: 'running' };
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(new Error('wait budget spent')), budgetMs);
    const onCallerGone = () => budget.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerGone, { once: true });
    try {
      const result = await this.client.withAbortSignal(budget.signal, () =>
        metrics.timeTemporal(
          'result-wait',
          () => this.client.workflow.getHandle<() => Promise<ChainResult>>(workflowId).result(),
          budget.signal,
        ),
      );
      return { kind: 'closed', state: completedState(result) };
    } catch (err) {
      const state = stateFromResultError(err);
      if (state) return { kind: 'closed', state };
      if (budget.signal.aborted) return { kind: 'running' };
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerGone);
    }
  }

  async view(
    workflowId: string,
    caller: Caller,
    options: { progress?: boolean } = {},
  ): Promise<ExecutionView | undefined> {
    if (!this.owns(workflowId, caller)) return undefined;
    // The progress query goes out with the describe, not after it: a poll costs the slower of the
    // two calls, not their sum. Temporal refuses it at once when the run is closed (NOT_OPEN).
    const progress = options.progress === false ? undefined : this.queryProgress(workflowId);
    const found = await this.describeOwned(workflowId, caller);
    if (!found) return undefined;
    const { handle, description, memo } = found;
    const running = description.status.name === 'RUNNING';
    const state: ExecutionState = !running
      ? await this.closedState(handle)
      : progress === undefined
        ? { status: 'running' }
        : await this.runningState(handle, description, await progress);
    return {
      workflowId,
      createdAt: description.startTime,
      lastUpdatedAt: lastUpdate(description),
      input: memo.input,
      state,
    };
  }

  async cancel(workflowId: string, caller: Caller): Promise<boolean> {
    if (!this.owns(workflowId, caller)) return false;
    const found = await this.describeOwned(workflowId, caller);
    if (!found) return false;
    if (found.description.status.name !== 'RUNNING') return true;
    try {
      await this.call(() => found.handle.cancel());
    } catch (err) {
      if (!isClosedMeanwhile(err)) throw err;
    }
    return true;
  }

  async sendInput(
    workflowId: string,
    caller: Caller,
    responses: Record<string, InputResponse>,
  ): Promise<boolean> {
    if (!this.owns(workflowId, caller)) return false;
    const found = await this.describeOwned(workflowId, caller);
    if (!found) return false;
    if (found.description.status.name !== 'RUNNING') return true;
    try {
      await this.call(() => found.handle.signal(inputResponsesSignal, responses));
    } catch (err) {
      if (!isClosedMeanwhile(err)) throw err;
    }
    return true;
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.call(
      () => this.client.workflowService.describeNamespace({ namespace: this.options.namespace }),
      timeoutMs,
    );
  }

  /** Whether the id is one this gateway issued to the caller (no Temporal call). */
  private owns(workflowId: string, caller: Caller): boolean {
    return isOwnedBy(this.options.serverSecret, caller.principal, workflowId);
  }

  /**
   * The run's handle and description when it exists, is a mining run, and its memo names the
   * caller (a second check behind the id's owner tag).
   */
  private async describeOwned(workflowId: string, caller: Caller) {
    const handle = this.client.workflow.getHandle<() => Promise<ChainResult>>(workflowId);
    let description: WorkflowExecutionDescription;
    try {
      description = await this.call(() => handle.describe());
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || grpcCodeIs(err, NOT_FOUND, INVALID_ARGUMENT))
        return undefined;
      throw err;
    }
    const memo = description.memo as Partial<RunMemo> | undefined;
    if (description.type !== MINE_CHAIN_WORKFLOW || !memo || memo.principal !== caller.principal)
      return undefined;
    return { handle, description, memo: memo as RunMemo };
  }

  /** A closed run's outcome, from its result or the failure its result throws. */
  private async closedState(handle: WorkflowHandle<() => Promise<ChainResult>>): Promise<ExecutionState> {
    try {
      return completedState(
        await this.call(() => metrics.timeTemporal('result-wait', () => handle.result())),
      );
    } catch (err) {
      const state = stateFromResultError(err);
      if (state) return state;
      throw err;
    }
  }

  /** The progress query's answer or its failure; never rejects (nobody may be awaiting it). */
  private queryProgress(workflowId: string): Promise<{ progress: LiveProgress } | { error: unknown }> {
    const handle = this.client.workflow.getHandle(workflowId);
    return this.call(() => handle.query(progressQuery), this.options.queryTimeoutMs).then(
      (progress: LiveProgress) => ({ progress }),
      (error: unknown) => ({ error }),
    );
  }

  private async runningState(
    handle: WorkflowHandle<() => Promise<ChainResult>>,
    description: WorkflowExecutionDescription,
    answer: { progress: LiveProgress } | { error: unknown },
  ): Promise<ExecutionState> {
    if ('progress' in answer) {
      const { progress } = answer;
      const nonce = heartbeatNonce(description);
      if (nonce !== undefined && progress.currentBlock !== null) progress.currentBlockNonce = nonce;
      return { status: 'running', progress };
    }
    // It closed between the describe and the query: answer its outcome.
    if (answer.error instanceof QueryRejectedError) return this.closedState(handle);
    return {
      status: 'running',
      note: queryFailureNote(answer.error, description.taskQueue, this.options.queryTimeoutMs),
    };
  }
}

/** Why there is no progress to show: most often, no worker is polling the run's task queue. */
export function queryFailureNote(err: unknown, taskQueue: string, queryTimeoutMs: number): string {
  if (isDeadline(err) || grpcCodeIs(err, FAILED_PRECONDITION)) {
    return (
      `Mining is in progress, but no worker is polling task queue "${taskQueue}" right now ` +
      `(no answer to the progress query within ${(queryTimeoutMs / 1000).toFixed(1)} s). ` +
      'The run is safe in Temporal and continues when a worker is back.'
    );
  }
  const cause = (err as { cause?: Error }).cause?.message;
  return `Mining is in progress; progress is unavailable right now (${cause ?? (err as Error).message}).`;
}

function grpcCodeIs(err: unknown, ...codes: number[]): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if (isGrpcServiceError(e)) return codes.includes(e.code);
  }
  return false;
}

/**
 * The call ran out of its deadline. Temporal answers an unanswerable query either way depending on
 * timing: DEADLINE_EXCEEDED (4) or, when its own context ends first, CANCELLED (1).
 */
function isDeadline(err: unknown): boolean {
  return grpcCodeIs(err, 4, 1) || /deadline/i.test((err as Error)?.message ?? '');
}

/** Cancel/signal on a run that closed after we described it: nothing left to do. */
function isClosedMeanwhile(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || grpcCodeIs(err, NOT_FOUND, FAILED_PRECONDITION);
}

/** The last nonce the block in flight heartbeated, if any. */
export function heartbeatNonce(description: WorkflowExecutionDescription): number | undefined {
  const payload = description.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
  if (!payload) return undefined;
  try {
    const details = defaultPayloadConverter.fromPayload<MineBlockHeartbeat>(payload as Payload);
    return typeof details?.nonce === 'number' ? details.nonce : undefined;
  } catch {
    return undefined;
  }
}

function timestampMs(
  ts: { seconds?: unknown; nanos?: number | null } | null | undefined,
): number | undefined {
  if (!ts || ts.seconds === undefined || ts.seconds === null) return undefined;
  return Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** The latest thing that happened to the run: start, close, or the block in flight's last heartbeat. */
function lastUpdate(description: WorkflowExecutionDescription): Date {
  const times = [description.startTime.getTime(), description.closeTime?.getTime()];
  for (const activity of description.raw.pendingActivities ?? []) {
    times.push(timestampMs(activity.lastHeartbeatTime), timestampMs(activity.lastStartedTime));
  }
  return new Date(Math.max(...times.filter((t): t is number => typeof t === 'number' && Number.isFinite(t))));
}
