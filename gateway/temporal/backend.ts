// The gateway's one way into Temporal, for every catalog tool: start → workflow.start, wait →
// handle.result() raced against the budget (the long poll is aborted when the budget ends), view →
// describe and, side by side, the tool's progress query with a short deadline, cancel →
// cancellation request, sendInput → the tool's input signal. Every operation on a task first checks
// its id's owner tag (runs.ts): no Temporal call for an id that is not the caller's. Every call has
// a hard deadline, so an unreachable Temporal is a clear error within seconds, never a hang.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac } from 'node:crypto';
import {
  Client,
  Connection,
  QueryRejectedError,
  type WorkflowClientInterceptor,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { defineSearchAttributeKey, type Payload, SearchAttributeType } from '@temporalio/common';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import type { EncryptionCodec } from '../../common/payload-codec.ts';
import type { TemporalEnv } from '../../common/temporal-env.ts';
import type { InputResponses } from '../../workflows/mcp-contract.ts';
import { metrics, type WaitOutcome as WaitEnd } from '../shared/metrics.ts';
import { activeTraceCarrier, annotateSpan, inSpan, linkToRun, tracingEnabled } from '../shared/tracing.ts';
import {
  GRPC,
  grpcCode,
  IdempotencyConflictError,
  InvalidCursorError,
  isClosedMeanwhile,
  isRunNotFound,
  isTemporalUnavailable,
  StartRefusedError,
  StartUnconfirmedError,
  TemporalDeadlineError,
} from './errors.ts';
import {
  completedState,
  differingArguments,
  type ExecutionState,
  type ExecutionView,
  heartbeatPayload,
  isOwnedBy,
  keyedTaskId,
  lastUpdate,
  latestHeartbeat,
  newTaskId,
  type ProgressAnswer,
  queryFailureNote,
  RESULT_TOO_LARGE,
  RESULT_TOO_LARGE_MESSAGE,
  type RequestOrigin,
  type RunMemo,
  runDetails,
  runSummary,
  stateFromResultError,
  TOO_LARGE_TASK_CAUSES,
  TOO_LARGE_TERMINATION,
  taskIdPrefix,
} from './runs.ts';
import { isSlotId, RunningTaskSlots, SLOT_WORKFLOW_TYPE, type Slot } from './slots.ts';

/** Times every Temporal call the client makes into the latency histogram, by operation. */
function metricsInterceptor(): WorkflowClientInterceptor {
  return {
    startWithDetails: (input, next) =>
      metrics.timeTemporal(input.workflowType === SLOT_WORKFLOW_TYPE ? 'slot-take' : 'start', () =>
        next(input),
      ),
    describe: (input, next) => metrics.timeTemporal('describe', () => next(input)),
    query: (input, next) => metrics.timeTemporal('query', () => next(input)),
    signal: (input, next) => metrics.timeTemporal('signal', () => next(input)),
    cancel: (input, next) => metrics.timeTemporal('cancel', () => next(input)),
    terminate: (input, next) =>
      metrics.timeTemporal(isSlotId(input.workflowExecution.workflowId) ? 'slot-release' : 'terminate', () =>
        next(input),
      ),
  };
}

/**
 * The gateway's Temporal client. The connection is lazy, so the gateway starts (and /readyz says
 * 503) while Temporal is down, and gets back in touch by itself when Temporal returns. With a
 * codec, every payload it writes (arguments, memo, signals, queries) is encrypted and every one it
 * reads is decrypted; search attributes are not payloads and stay readable.
 */
export function createTemporalClient(
  temporal: TemporalEnv,
  connectTimeoutMs: number,
  codec?: EncryptionCodec,
): Client {
  const { address, tls, apiKey, metadata } = temporal.connectionOptions;
  const connection = Connection.lazy({
    address,
    ...(tls === undefined || tls === null ? {} : { tls }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(metadata === undefined ? {} : { metadata }),
    connectTimeout: connectTimeoutMs,
  });
  return new Client({
    connection,
    namespace: temporal.namespace,
    ...(codec ? { dataConverter: { payloadCodecs: [codec] } } : {}),
    // With tracing on, every client call is a span under the request's, and a start carries the
    // trace context to the workflow in its headers.
    interceptors: {
      workflow: [
        metricsInterceptor(),
        ...(tracingEnabled() ? [new OpenTelemetryWorkflowClientInterceptor()] : []),
      ],
    },
    // A progress query on a closed run is refused by Temporal at once instead of replayed on a worker.
    workflow: { queryRejectCondition: 'NOT_OPEN' },
  });
}

/** Runs `run` until `deadline` (epoch ms); past it, rejects with TemporalDeadlineError and aborts it. */
export function withHardDeadline<T>(deadline: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const remaining = Math.max(0, deadline - Date.now());
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new TemporalDeadlineError(remaining);
      reject(error);
      abort.abort(error);
    }, remaining);
  });
  const call = run(abort.signal);
  call.catch(() => {}); // its failure after the bound is the abort above: nobody to tell
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

export const MCP_TOOL = defineSearchAttributeKey('McpTool', SearchAttributeType.KEYWORD);
export const MCP_PRINCIPAL = defineSearchAttributeKey('McpPrincipal', SearchAttributeType.KEYWORD);

/** Who is calling: every task operation is scoped to the principal that started the task. */
export interface Caller {
  principal: string;
  /** The MCP client and protocol revision of the request, when known (shown in the Web UI). */
  origin?: RequestOrigin;
}

/** A run to start for a catalog tool. */
export interface StartRequest {
  tool: { name: string; idPrefix: string; workflow: string; taskQueue: string };
  /** The workflow's single argument. */
  input: unknown;
  /** The tool arguments as validated (defaults applied), kept with the run. */
  arguments: Record<string, unknown>;
  /** Arguments the tool's schema marks `writeOnly` (secrets): kept with the run only as a keyed digest. */
  secretArguments?: readonly string[];
  /**
   * Makes the start idempotent: the same (caller, tool, key) names the same run, which a retried
   * start returns; the same key with other arguments is an invalid-params error.
   */
  idempotencyKey?: string;
  /** One line for the Web UI. */
  summary: string;
}

export interface StartedRun {
  workflowId: string;
  /** When this call created the run; absent when a keyed start answered a run already there. */
  createdAt?: Date;
}

export type WaitOutcome = { kind: 'closed'; state: ExecutionState } | { kind: 'running' };

/** Why a wait was interrupted: the reason its interrupt was aborted with ('shutdown'), else input. */
function interruptedBy(interrupt: AbortSignal): WaitEnd {
  return interrupt.reason === SHUTDOWN ? 'shutdown' : 'input_required';
}

/** The abort reason of the gateway's stopping signal, so a wait it cuts short is counted as such. */
export const SHUTDOWN = 'shutdown';

export interface BackendOptions {
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

export class TemporalBackend {
  /** The running-task cap's slots; undefined when there is no cap. */
  private readonly slots: RunningTaskSlots | undefined;
  /** Slots of runs this gateway started and is waiting on: freed the moment the wait sees the end. */
  private readonly held = new Map<string, Slot>();

  constructor(
    private readonly client: Client,
    private readonly options: BackendOptions,
  ) {
    const limit = options.maxRunningTasks ?? 0;
    this.slots =
      limit > 0
        ? new RunningTaskSlots(client, {
            serverSecret: options.serverSecret,
            limit,
            call: (fn) => this.call(fn),
          })
        : undefined;
  }

  /**
   * A key for `purpose` derived from the server secret (HMAC-SHA-256), the same on every replica:
   * one secret, a separate key per use, so a value signed for one use is never valid for another.
   */
  derivedKey(purpose: string): Buffer {
    return createHmac('sha256', this.options.serverSecret).update(`temporal-mcp-gateway:${purpose}`).digest();
  }

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
   * Starts a run; resolves once the start is durable. Everything a start does (the idempotency
   * lookup, the running-task count, the start) shares one deadline, so an unreachable Temporal
   * fails the call within callTimeoutMs.
   */
  start(request: StartRequest, caller: Caller): Promise<StartedRun> {
    return this.sharedDeadline.run(Date.now() + this.options.callTimeoutMs, async () => {
      if (request.idempotencyKey === undefined) {
        const workflowId = newTaskId(this.options.serverSecret, caller.principal, request.tool.idPrefix);
        const slot = await this.takeSlot(caller, workflowId);
        try {
          const started = await this.startRun(request, caller, workflowId, this.keptArguments(request));
          if (slot) this.held.set(workflowId, slot);
          return started;
        } catch (err) {
          // Unconfirmed, the run may exist: its slot stays held (a full look frees it if not).
          if (!isTemporalUnavailable(err)) {
            if (slot) this.releaseSlot(slot);
            throw err;
          }
          return this.unconfirmedStart(workflowId, caller, err);
        }
      }
      return this.startKeyed(request, caller, request.idempotencyKey);
    });
  }

  /**
   * A start Temporal did not confirm in time may still have been committed: the run is looked for
   * once (on a deadline of its own) and answered if it is there; otherwise the caller is told its
   * id, never only "try again" (a retry without an idempotency key would start a second run).
   */
  private async unconfirmedStart(workflowId: string, caller: Caller, cause: unknown): Promise<StartedRun> {
    const found = await this.sharedDeadline
      .exit(() => this.describeOwned(workflowId, caller))
      .catch(() => undefined);
    if (found) return { workflowId };
    throw new StartUnconfirmedError(workflowId, cause);
  }

  /**
   * A start with an idempotency key: the key names the run (keyed task id), a retry answers the run
   * already there (running or closed, no cap applies to answering it), and the same key with other
   * arguments is refused.
   */
  private async startKeyed(request: StartRequest, caller: Caller, key: string): Promise<StartedRun> {
    const workflowId = keyedTaskId(this.options.serverSecret, caller.principal, request.tool, key);
    const kept = this.keptArguments(request);
    const sameArguments = (run: { memo: RunMemo }) => {
      const differing = differingArguments(run.memo.arguments ?? {}, kept);
      if (differing.length > 0) throw new IdempotencyConflictError(key, request.tool.name, differing);
    };
    const existing = await this.describeOwned(workflowId, caller);
    if (existing) {
      sameArguments(existing);
      return { workflowId };
    }
    const slot = await this.takeSlot(caller, workflowId);
    try {
      await this.startRun(request, caller, workflowId, kept, 'USE_EXISTING');
    } catch (err) {
      // A concurrent start with this key created the run and it closed meanwhile: answer that run.
      if (slot) this.releaseSlot(slot);
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    // A concurrent start with this key may have won with other arguments: check the run we got.
    const started = await this.describeOwned(workflowId, caller);
    if (!started) throw new Error(`the run ${workflowId} was started but cannot be found`);
    sameArguments(started);
    return { workflowId };
  }

  /** A slot of the running-task cap for the run about to start (none without a cap); or RunningTaskLimitError. */
  private takeSlot(caller: Caller, workflowId: string): Promise<Slot | undefined> {
    return this.slots ? this.slots.take(caller.principal, workflowId) : Promise.resolve(undefined);
  }

  /** Frees a slot in the background: the answer never waits for it (a full look frees it otherwise). */
  private releaseSlot(slot: Slot): void {
    this.slots?.release(slot).catch(() => {});
  }

  /**
   * Starts the run under `workflowId`, with `kept` (the arguments as the memo keeps them). Temporal's
   * refusal of what it was given is not "not found" but a start refused.
   */
  private async startRun(
    request: StartRequest,
    caller: Caller,
    workflowId: string,
    kept: Record<string, unknown>,
    conflictPolicy?: 'USE_EXISTING',
  ): Promise<StartedRun> {
    const { tool } = request;
    const createdAt = new Date();
    const memo: RunMemo = {
      tool: tool.name,
      createdAt: createdAt.toISOString(),
      arguments: kept,
      principal: caller.principal,
      ...(caller.origin ? { origin: caller.origin } : {}),
      // Later polls and pushes link to the start's trace (tracing on only).
      ...(tracingEnabled() ? { trace: activeTraceCarrier() } : {}),
    };
    try {
      await this.call(() =>
        this.client.workflow.start(tool.workflow, {
          workflowId,
          taskQueue: tool.taskQueue,
          args: [request.input],
          memo: memo as unknown as Record<string, unknown>,
          typedSearchAttributes: [
            { key: MCP_TOOL, value: tool.name },
            { key: MCP_PRINCIPAL, value: caller.principal },
          ],
          staticSummary: runSummary(request.summary),
          staticDetails: runDetails({ ...memo, origin: caller.origin }),
          // A keyed start: a running run with this id is returned as is, and a closed one is never
          // replaced by a second run (the start fails and the existing run is answered instead).
          ...(conflictPolicy
            ? { workflowIdConflictPolicy: conflictPolicy, workflowIdReusePolicy: 'REJECT_DUPLICATE' as const }
            : {}),
        }),
      );
    } catch (err) {
      if (grpcCode(err) === GRPC.INVALID_ARGUMENT) throw new StartRefusedError(err);
      throw err;
    }
    // With USE_EXISTING the run may be an older one: its creation time is not ours to tell.
    return conflictPolicy ? { workflowId } : { workflowId, createdAt };
  }

  /**
   * Waits for the run to close, at most `budgetMs` (or until `signal` aborts: the caller left; or
   * `interrupt` aborts: the run asks for input, or the gateway stops, as its reason says): resolves the moment it closes, or with `running`
   * when the wait ends first. Leaves no wait behind; every wait is timed into the wait histogram
   * with how it ended.
   */
  wait(
    workflowId: string,
    budgetMs: number,
    signal?: AbortSignal,
    interrupt?: AbortSignal,
  ): Promise<WaitOutcome> {
    if (budgetMs <= 0 || signal?.aborted || interrupt?.aborted) return Promise.resolve({ kind: 'running' });
    return inSpan('wait budget', { 'mcp.task.id': workflowId, 'mcp.wait.budget_ms': budgetMs }, () =>
      this.waitFor(workflowId, budgetMs, signal, interrupt),
    );
  }

  private async waitFor(
    workflowId: string,
    budgetMs: number,
    signal?: AbortSignal,
    interrupt?: AbortSignal,
  ): Promise<WaitOutcome> {
    const elapsed = metrics.stopwatch();
    // How the wait ended: on the wait histogram, and on the wait's span.
    const ended = (how: WaitEnd) => {
      metrics.waitObserved(elapsed(), how);
      annotateSpan({ 'mcp.wait.end': how });
      // The run this gateway started ended within the wait: its slot of the cap is free again.
      const slot = this.held.get(workflowId);
      if (slot && how === 'closed') this.releaseSlot(slot);
      this.held.delete(workflowId);
    };
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(new Error('wait budget spent')), budgetMs);
    const onEnd = () => budget.abort(new Error('wait ended'));
    signal?.addEventListener('abort', onEnd, { once: true });
    interrupt?.addEventListener('abort', onEnd, { once: true });
    try {
      const result = await this.client.withAbortSignal(budget.signal, () =>
        metrics.timeTemporal(
          'result-wait',
          () => this.client.workflow.getHandle(workflowId).result(),
          budget.signal,
        ),
      );
      ended('closed');
      return { kind: 'closed', state: completedState(result) };
    } catch (err) {
      const state = stateFromResultError(err);
      if (state) {
        ended('closed');
        return { kind: 'closed', state };
      }
      if (budget.signal.aborted) {
        ended(
          signal?.aborted ? 'caller_gone' : interrupt?.aborted ? interruptedBy(interrupt) : 'budget_spent',
        );
        return { kind: 'running' };
      }
      ended('error');
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onEnd);
      interrupt?.removeEventListener('abort', onEnd);
    }
  }

  /**
   * Resolves with the run's outcome the moment it closes (one long poll, no timer), or undefined
   * when `signal` aborts first. The watch is counted while it is open.
   */
  async closed(workflowId: string, signal: AbortSignal): Promise<ExecutionState | undefined> {
    if (signal.aborted) return undefined;
    const done = metrics.watchOpened();
    try {
      const result = await this.client.withAbortSignal(signal, () =>
        metrics.timeTemporal(
          'result-wait',
          () => this.client.workflow.getHandle(workflowId).result(),
          signal,
        ),
      );
      return completedState(result);
    } catch (err) {
      const state = stateFromResultError(err);
      if (state) return state;
      if (signal.aborted) return undefined;
      throw err;
    } finally {
      done();
    }
  }

  /**
   * The run as the caller may see it; undefined when unknown, expired or another caller's.
   * `progressQuery` names the tool's progress query; without it a running run has no progress.
   */
  async view(
    workflowId: string,
    caller: Caller,
    options: { progressQuery?: string; idPrefix?: string } = {},
  ): Promise<ExecutionView | undefined> {
    if (!this.owns(workflowId, caller, options.idPrefix)) return undefined;
    // The progress query goes out with the describe, not after it: a poll costs the slower of the
    // two calls, not their sum. Temporal refuses it at once when the run is closed (NOT_OPEN).
    const progress = options.progressQuery
      ? this.queryProgress(workflowId, options.progressQuery)
      : undefined;
    const found = await this.describeOwned(workflowId, caller);
    if (!found) return undefined;
    const { handle, description, memo } = found;
    linkToRun(memo.trace, { 'mcp.task.id': workflowId });
    const createdAt = memo.createdAt ? new Date(memo.createdAt) : description.startTime;
    const running = description.status.name === 'RUNNING';
    const state: ExecutionState = !running
      ? await this.closedState(handle)
      : await this.runningState(handle, description, progress && (await progress));
    return {
      workflowId,
      tool: memo.tool,
      createdAt,
      // Never before the creation time the start's own answer gave.
      lastUpdatedAt: new Date(Math.max(createdAt.getTime(), lastUpdate(description).getTime())),
      arguments: memo.arguments ?? {},
      state,
      ...(memo.trace ? { trace: memo.trace } : {}),
    };
  }

  /**
   * The progress query's answer alone (no describe): what a call waiting on its own run reads to
   * see whether the workflow asks for input. Undefined when the run is not the caller's, is closed,
   * or the query fails (the wait goes on either way).
   */
  async progressOf(
    workflowId: string,
    caller: Caller,
    queryName: string,
  ): Promise<ProgressAnswer | undefined> {
    if (!this.owns(workflowId, caller)) return undefined;
    const answer = await this.queryProgress(workflowId, queryName);
    return 'progress' in answer ? answer.progress : undefined;
  }

  /**
   * Requests cancellation; false when there is no such run for this caller (of the tool with
   * `idPrefix`, when given). No-op once closed.
   */
  async cancel(workflowId: string, caller: Caller, idPrefix?: string): Promise<boolean> {
    if (!this.owns(workflowId, caller, idPrefix)) return false;
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

  /** Sends input responses on the tool's input signal; false when there is no such run for this caller. */
  async sendInput(
    workflowId: string,
    caller: Caller,
    signalName: string,
    responses: InputResponses,
    /** The tool's progress query: only answers to requests outstanding now are signalled. */
    progressQuery?: string,
  ): Promise<boolean> {
    if (!this.owns(workflowId, caller)) return false;
    const asked = progressQuery ? this.queryProgress(workflowId, progressQuery) : undefined;
    const found = await this.describeOwned(workflowId, caller);
    if (!found) return false;
    if (found.description.status.name !== 'RUNNING') return true;
    let due = responses;
    const answer = asked && (await asked);
    // Keys the run does not ask for now (never asked, or answered before) never reach its history;
    // when the query cannot be answered (no worker right now) the answers go as they are.
    if (answer && 'progress' in answer) {
      const outstanding = answer.progress.inputRequests ?? {};
      due = Object.fromEntries(Object.entries(responses).filter(([key]) => Object.hasOwn(outstanding, key)));
      if (Object.keys(due).length === 0) return true;
    }
    try {
      await this.call(() => found.handle.signal(signalName, due));
    } catch (err) {
      if (!isClosedMeanwhile(err)) throw err;
    }
    return true;
  }

  /**
   * One page of the caller's completed runs, newest first, with their results: what
   * resources/list reads artifact references from. `cursor` is the page token of the page before
   * (the visibility store's own, base64url); the query names the caller, so no cursor reaches
   * another caller's runs.
   */
  async completedRuns(
    caller: Caller,
    cursor?: string,
    pageSize = 20,
  ): Promise<{ runs: { workflowId: string; result: unknown }[]; cursor?: string }> {
    const principal = caller.principal.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
    let page: Awaited<ReturnType<Client['workflowService']['listWorkflowExecutions']>>;
    try {
      page = await this.call(() =>
        this.client.workflowService.listWorkflowExecutions({
          namespace: this.options.namespace,
          pageSize,
          query: `${MCP_PRINCIPAL.name} = '${principal}' AND ExecutionStatus = 'Completed'`,
          ...(cursor ? { nextPageToken: Buffer.from(cursor, 'base64url') } : {}),
        }),
      );
    } catch (err) {
      if (cursor && grpcCode(err) === GRPC.INVALID_ARGUMENT) throw new InvalidCursorError();
      throw err;
    }
    const ids = (page.executions ?? [])
      .map((execution) => execution.execution?.workflowId)
      .filter((id): id is string => typeof id === 'string' && this.owns(id, caller));
    const runs = await Promise.all(
      ids.map(async (workflowId) => ({
        workflowId,
        result: await this.call(() => this.client.workflow.getHandle(workflowId).result()).catch(
          () => undefined,
        ),
      })),
    );
    const token = page.nextPageToken;
    return {
      runs,
      ...(token && token.length > 0 ? { cursor: Buffer.from(token).toString('base64url') } : {}),
    };
  }

  /** Resolves when Temporal answers within `timeoutMs`; rejects otherwise. */
  async ping(timeoutMs: number): Promise<void> {
    await this.call(
      () => this.client.workflowService.describeNamespace({ namespace: this.options.namespace }),
      timeoutMs,
    );
  }

  /**
   * The arguments as the memo and the Web UI keep them: a secret one as a digest keyed by the server
   * secret (a retry with the same key can still be compared, the value cannot be read or guessed).
   */
  private keptArguments(request: StartRequest): Record<string, unknown> {
    const secrets = request.secretArguments ?? [];
    if (!secrets.some((name) => name in request.arguments)) return request.arguments;
    const kept = { ...request.arguments };
    const key = this.derivedKey('secret-argument');
    for (const name of secrets) {
      if (!(name in kept)) continue;
      const digest = createHmac('sha256', key).update(JSON.stringify(kept[name])).digest('hex').slice(0, 32);
      kept[name] = `[secret hmac-sha256:${digest}]`;
    }
    return kept;
  }

  /** Whether the id is one a gateway with this secret issued to `principal` (no Temporal call). */
  issuedTo(workflowId: string, principal: string): boolean {
    return isOwnedBy(this.options.serverSecret, principal, workflowId);
  }

  /** Whether the id is one this gateway issued to the caller, for `idPrefix`'s tool if given (no Temporal call). */
  private owns(workflowId: string, caller: Caller, idPrefix?: string): boolean {
    if (idPrefix !== undefined && taskIdPrefix(workflowId) !== idPrefix) return false;
    return isOwnedBy(this.options.serverSecret, caller.principal, workflowId);
  }

  /**
   * The run's handle and description when it exists, was started by the gateway for a tool, and
   * its memo names the caller (a second check behind the id's owner tag).
   */
  private async describeOwned(workflowId: string, caller: Caller) {
    const handle = this.client.workflow.getHandle(workflowId);
    let description: WorkflowExecutionDescription;
    try {
      description = await this.call(() => handle.describe());
    } catch (err) {
      if (isRunNotFound(err)) return undefined;
      throw err;
    }
    const memo = description.memo as Partial<RunMemo> | undefined;
    if (!memo || typeof memo.tool !== 'string' || memo.principal !== caller.principal) return undefined;
    return { handle, description, memo: memo as RunMemo };
  }

  /** A closed run's outcome, from its result or the failure its result throws. */
  private async closedState(handle: WorkflowHandle): Promise<ExecutionState> {
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
  private queryProgress(
    workflowId: string,
    queryName: string,
  ): Promise<{ progress: ProgressAnswer } | { error: unknown }> {
    const handle = this.client.workflow.getHandle(workflowId);
    return this.call(() => handle.query<ProgressAnswer>(queryName), this.options.queryTimeoutMs).then(
      (progress) => ({ progress: isObject(progress) ? progress : {} }),
      (error: unknown) => ({ error }),
    );
  }

  /** The heartbeat details, through the client's codecs (a detail: undefined when they fail). */
  private async heartbeat(description: WorkflowExecutionDescription): Promise<unknown> {
    let payload = heartbeatPayload(description);
    if (!payload) return undefined;
    try {
      for (const codec of [...this.client.options.loadedDataConverter.payloadCodecs].reverse())
        [payload] = await codec.decode([payload as Payload]);
    } catch {
      return undefined;
    }
    return latestHeartbeat(description, payload);
  }

  /**
   * Whether the run's workflow task keeps failing because what it completes with is too large: the
   * latest WorkflowTaskFailed event (retries of a failing task add none) has a size cause.
   */
  private async stuckOnSize(workflowId: string): Promise<boolean> {
    const page = await this.call(() =>
      this.client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: this.options.namespace,
        execution: { workflowId },
        maximumPageSize: 20,
      }),
    );
    const failure = (page.history?.events ?? []).find((event) => event.workflowTaskFailedEventAttributes);
    const cause = failure?.workflowTaskFailedEventAttributes?.cause;
    return typeof cause === 'number' && TOO_LARGE_TASK_CAUSES.has(cause);
  }

  private async runningState(
    handle: WorkflowHandle,
    description: WorkflowExecutionDescription,
    answer: { progress: ProgressAnswer } | { error: unknown } | undefined,
  ): Promise<ExecutionState> {
    if (
      (description.raw.pendingWorkflowTask?.attempt ?? 0) >= 2 &&
      (await this.stuckOnSize(handle.workflowId))
    ) {
      // It can never complete: end it, so every wait and watch on it ends too, and say why.
      await this.call(() => handle.terminate(TOO_LARGE_TERMINATION)).catch((err) => {
        if (!isClosedMeanwhile(err)) throw err;
      });
      return {
        status: 'failed',
        toolError: false,
        reason: RESULT_TOO_LARGE,
        message: RESULT_TOO_LARGE_MESSAGE,
      };
    }
    const heartbeat = await this.heartbeat(description);
    const withHeartbeat = heartbeat === undefined ? {} : { heartbeat };
    if (answer === undefined) return { status: 'running', ...withHeartbeat };
    if ('progress' in answer) return { status: 'running', progress: answer.progress, ...withHeartbeat };
    // It closed between the describe and the query: answer its outcome.
    if (answer.error instanceof QueryRejectedError) return this.closedState(handle);
    return {
      status: 'running',
      ...withHeartbeat,
      note: queryFailureNote(answer.error, description.taskQueue, this.options.queryTimeoutMs),
    };
  }
}

function isObject(value: unknown): value is ProgressAnswer {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
