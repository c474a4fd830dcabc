// The MCP side of the gateway: the SDK's stateless HTTP handler and a Server per request (the SDK
// serves each exchange on a fresh one), on which every method of the table (methods.ts) of the
// request's revision is registered by one loop: its capability checked, its params parsed by its
// schema, its handler called with the request's values, its outcome counted and logged once
// (observe.ts).
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AuthInfo,
  createMcpHandler,
  createRequestStateCodec,
  type InboundClassificationOutcome,
  type RequestStateCodec,
  Server,
  type ServerContext,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { Caller } from '../shared/caller.ts';
import { type Envelope, META, MODERN_PROTOCOL_VERSION, TASKS_EXTENSION } from '../shared/protocol.ts';
import type { TaskRef } from '../temporal/task-ids.ts';
import { SHUTDOWN } from '../temporal/wait.ts';
import { errorBody, errorResponse, invalidParams, missingTasksCapability } from './errors.ts';
import type { RoundState } from './input-rounds.ts';
import { deliverTaskInput, taskInputAnswer } from './legacy-task-input.ts';
import { declaresTasksExtension, type Era, type McpDeps, type MethodCall } from './method-context.ts';
import { METHODS, type MethodDeclaration, type MethodParts } from './methods.ts';
import { observeTaskRequest, observeToolCall, type RequestLogger } from './observe.ts';
import { type ListenRequest, TaskSubscriptions } from './subscriptions-listen.ts';
import { describeIssues } from './tool-definition.ts';
import { CatalogTools } from './tools-list.ts';

/** Longest a shutdown waits for the answers in flight to be given before closing their exchanges. */
const DRAIN_CALLS_MS = 5_000;

const SERVER_INFO = { name: 'temporal-mcp-gateway', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'Long-running tools backed by a durable workflow engine. A start tool waits a while; if the work is not ' +
  'done it returns a workflow_id: poll the result tool its answer names with that exact id, waiting ' +
  'poll_after_seconds between polls, until the status is no longer "running".';

/** The principal of every caller when the gateway runs without authentication (loopback only). */
export const ANONYMOUS = 'anonymous';

// Params are checked inside the handler, after the capability check, so a client without the
// extension always learns that first.
const anyParams = z.looseObject({});

type Handle = (call: MethodCall) => Promise<object> | object;

/** Whether a subscriptions/listen asks for tasks (the Tasks extension's filter), not the SDK's own events. */
function listensToTasks({ method, params }: Envelope): boolean {
  const notifications = params.notifications as { taskIds?: unknown } | undefined;
  return method === 'subscriptions/listen' && Array.isArray(notifications?.taskIds);
}

/** One request as the HTTP layer hands it over. */
export interface McpRequest {
  request: Request;
  /** The caller as the SDK knows it (its requestState is bound to the principal). */
  authInfo: AuthInfo;
  caller: Caller;
  parsedBody: unknown;
  /** What the body says about itself, as the HTTP layer read it. */
  envelope: Envelope;
  /** The task ids the body names, parsed once (methods.ts). */
  tasks: readonly TaskRef[];
  /** The request's protocol classification, as the HTTP layer made it judging its headers. */
  route: InboundClassificationOutcome;
  /** The request's logger, bound to the task its body names (`boundTask`), if it names one. */
  log: RequestLogger;
  boundTask?: string;
  /** Settles once the answer has left the process (or the caller has gone). */
  answered: Promise<void>;
  /**
   * Aborts when the client goes away: the HTTP layer's own signal, not `request.signal`, which
   * follows it only as long as the Request object lives (a stream outlives it).
   */
  callerLeft: AbortSignal;
}

/** The answer, and the task it is about when only the answer names it (a tools/call's). */
export interface McpAnswer {
  response: Response;
  taskId?: string;
}

/** What one request's handlers are handed, made from it once. */
interface RequestValues {
  caller: Caller;
  parsed: MethodCall['parsed'];
  log: { log: RequestLogger; bound: boolean };
  answered: Promise<void>;
  /** The task a tools/call's answer names: the SDK's handler gives back only a Response, so it is kept here. */
  answerTask: { taskId?: string };
}

function valuesOf({ caller, tasks, log, boundTask, answered }: McpRequest): RequestValues {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const parsed = (taskId: string) => byId.get(taskId);
  return { caller, parsed, log: { log, bound: boundTask !== undefined }, answered, answerTask: {} };
}

export class McpHandler {
  private readonly tools: CatalogTools;
  /** Each handled method's handler, made once from the parts it uses. */
  private readonly handlers: ReadonlyMap<string, Handle>;
  private readonly subscriptions: TaskSubscriptions;
  private readonly parts: McpDeps;
  /** Signs input_required answers' requestState: HMAC with a key of the server secret, bound to the caller. */
  private readonly requestStates: RequestStateCodec<RoundState>;
  /** Aborts at shutdown: waiting tool calls answer their handles, task streams end. */
  private readonly stopping = new AbortController();
  /** Answers not yet given. */
  private readonly calls = new Set<Promise<unknown>>();
  /** The SDK handlers of the exchanges not answered yet (a shutdown closes them). */
  private readonly open = new Set<ReturnType<typeof createMcpHandler>>();

  constructor(parts: McpDeps) {
    const { timing, clientWaitBudgets } = parts;
    this.parts = parts;
    this.tools = new CatalogTools(parts.catalog, {
      ...{ starts: parts.starts, waits: parts.waits, views: parts.views, actions: parts.actions },
      recentRuns: parts.recentRuns,
      timing,
      stopping: this.stopping.signal,
      ...(clientWaitBudgets ? { clientWaitBudgets } : {}),
      ...(parts.hostTools ? { hostTools: parts.hostTools } : {}),
    });
    this.requestStates = createRequestStateCodec<RoundState>({
      key: parts.requestStateKey,
      ttlSeconds: parts.requestStateTtlSeconds,
      bind: (ctx) => ctx.http?.authInfo?.clientId || ANONYMOUS,
    });
    this.subscriptions = new TaskSubscriptions(parts);
    const methodParts: MethodParts = {
      ...parts,
      tools: this.tools.byName,
      listed: () => this.tools.list(),
      requestStates: this.requestStates,
      subscriptions: this.subscriptions,
      stopping: this.stopping.signal,
    };
    const handlers = new Map<string, Handle>();
    for (const [method, declaration] of Object.entries(METHODS))
      if (!declaration.servedBy) handlers.set(method, declaration.handler(methodParts) as Handle);
    this.handlers = handlers;
  }

  /**
   * Serves one MCP request. A subscriptions/listen for tasks is served here, past the SDK's
   * handler: the SDK's listen router carries only its own list-changed and resource events, and
   * answers before any handler of ours could take over.
   */
  async fetch(mcpRequest: McpRequest): Promise<McpAnswer> {
    const { request, authInfo, parsedBody, envelope } = mcpRequest;
    const values = valuesOf(mcpRequest);
    if (listensToTasks(envelope)) return { response: await this.listen(mcpRequest, values) };
    // A 2025-11-25 client's answer to a task's input request: for the run, wherever it was asked.
    const answer = envelope.method === undefined ? taskInputAnswer(parsedBody) : undefined;
    if (answer)
      return { response: await deliverTaskInput(answer, { ...values, log: values.log.log }, this.parts) };
    const served = () =>
      this.sdkHandler(values).fetch(request, {
        authInfo,
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
    // The SDK's own listen stream (no taskIds) is one of the caller's streams all the same.
    const response =
      envelope.method === 'subscriptions/listen' && mcpRequest.route.kind === 'modern'
        ? await this.subscriptions.counted(envelope.id, values.caller.principal, served)
        : await served();
    return { response, ...values.answerTask };
  }

  /**
   * The SDK's handler for one request. Its server factory is handed only authInfo and the Request,
   * so it is made per request: the request's values reach the handlers as the factory's arguments.
   */
  private sdkHandler(values: RequestValues): ReturnType<typeof createMcpHandler> {
    const handler = createMcpHandler(({ era }) => this.create(era, values), { onerror: this.parts.onError });
    this.open.add(handler);
    void values.answered.then(() => this.open.delete(handler));
    return handler;
  }

  /** subscriptions/listen for tasks, judged first by the SDK's own rules (envelope against headers, revision). */
  private async listen(mcpRequest: McpRequest, values: RequestValues): Promise<Response> {
    const { request, authInfo, parsedBody, envelope, route, callerLeft } = mcpRequest;
    const { id } = envelope;
    if (route.kind === 'legacy' || id === undefined)
      return this.sdkHandler(values).fetch(request, { authInfo, parsedBody });
    if (route.kind === 'reject') {
      return Response.json(errorBody(id, route.code, route.message, route.data as Record<string, unknown>), {
        status: route.httpStatus,
      });
    }
    try {
      return await observeTaskRequest(values.log.log, 'subscriptions/listen', async () => {
        const revision = route.classification.revision;
        if (revision !== MODERN_PROTOCOL_VERSION) {
          const requested = revision ?? 'unknown';
          throw new UnsupportedProtocolVersionError({ supported: [MODERN_PROTOCOL_VERSION], requested });
        }
        const listen = parsedBody as ListenRequest;
        const capabilities = listen.params._meta?.[META.clientCapabilities] as object | undefined;
        if (METHODS['subscriptions/listen']?.tasksExtension && !declaresTasksExtension(capabilities))
          throw missingTasksCapability();
        return this.subscriptions.serve(
          listen,
          values.caller,
          callerLeft,
          (taskId) => values.parsed(taskId) ?? taskId,
        );
      });
    } catch (err) {
      return errorResponse(id, err);
    }
  }

  /**
   * First step of a shutdown, before the HTTP server waits for its connections: every task stream
   * ends with its result, every SDK stream is closed, and every tool call still waiting stops
   * waiting and answers its task or handle (the run goes on; nothing is cut off without an answer).
   */
  async drain(): Promise<void> {
    this.stopping.abort(SHUTDOWN);
    this.subscriptions.closeAll();
    // The SDK's close ends every exchange it holds, a call's included: first let the waiting calls
    // answer (they stop waiting at once; each still describes its run), within a bound.
    await Promise.race([
      Promise.allSettled([...this.calls]),
      delay(DRAIN_CALLS_MS, undefined, { ref: false }),
    ]);
    await new Promise((resolve) => setImmediate(resolve)); // their answers written before the close
    await this.close();
  }

  async close(): Promise<void> {
    await Promise.all([...this.open].map((handler) => handler.close()));
  }

  /**
   * A server for one request. 2026-07-28 (`modern`) requests see the Tasks extension; 2025-era ones
   * the revision's own tasks (SEP-1686), which a call asks for with `params.task`. A client of
   * neither gets start/poll handles. Every method the table declares for the era is registered.
   */
  private create(era: Era, values: RequestValues): Server {
    const tasks =
      era === 'modern'
        ? { extensions: { [TASKS_EXTENSION]: {} } }
        : { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {}, resources: {}, ...tasks },
      instructions: INSTRUCTIONS,
      // A tampered, expired or another caller's requestState is refused (-32602) before any handler.
      requestState: { verify: (state, ctx) => this.requestStates.verify(state, ctx) },
    });
    for (const [method, declaration] of Object.entries(METHODS)) {
      const handle = this.handlers.get(method);
      if (!declaration.eras.includes(era) || !handle || declaration.servedBy) continue;
      const serve = (raw: Record<string, unknown>, ctx: ServerContext) =>
        this.observed([method, declaration], raw, values, async () => {
          if (
            era === 'modern' &&
            declaration.tasksExtension &&
            !declaresTasksExtension(server.getClientCapabilities())
          )
            throw missingTasksCapability();
          const parsed = declaration.params.safeParse(raw);
          if (!parsed.success) throw invalidParams(`Invalid params: ${describeIssues(parsed.error)}`);
          const { caller, parsed: named, answered } = values;
          return handle({ params: parsed.data, era, caller, parsed: named, server, ctx, answered });
        }) as never;
      // A core method's params are checked by the SDK's own wire schema first, the others' by ours only.
      if (declaration.wire === 'spec')
        server.setRequestHandler(method as 'tools/list', (request, ctx) =>
          serve((request.params ?? {}) as Record<string, unknown>, ctx),
        );
      else server.setRequestHandler(method, { params: anyParams }, serve);
    }
    return server;
  }

  /** One request's handling, counted and logged as its declaration's outcome says; tracked till it answers. */
  private observed(
    [method, declaration]: [string, MethodDeclaration],
    raw: Record<string, unknown>,
    values: RequestValues,
    run: () => Promise<object>,
  ): Promise<object> {
    let answer: Promise<object>;
    if (declaration.outcome === 'tool_call') {
      const name = typeof raw.name === 'string' && this.tools.byName.has(raw.name) ? raw.name : 'unknown';
      answer = observeToolCall(values.log, name, run).then(({ answer, taskId }) => {
        if (taskId) values.answerTask.taskId = taskId;
        return answer;
      });
    } else if (declaration.outcome === 'request') answer = observeTaskRequest(values.log.log, method, run);
    else answer = run();
    this.calls.add(answer);
    const done = () => this.calls.delete(answer);
    answer.then(done, done);
    return answer;
  }
}
