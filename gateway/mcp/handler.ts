// The MCP side of the gateway: the SDK's stateless HTTP handler and a Server per request (the SDK
// serves each exchange on a fresh one), bound to its caller: each method handed to the file that
// serves it, counted and logged once (observe.ts).
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AuthInfo,
  createMcpHandler,
  createRequestStateCodec,
  type InboundClassificationOutcome,
  Server,
  type ServerContext,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { Caller } from '../shared/caller.ts';
import { type Envelope, META, MODERN_PROTOCOL_VERSION, TASKS_EXTENSION } from '../shared/protocol.ts';
import type { ParsedTaskIds, TaskRef } from '../temporal/task-ids.ts';
import { SHUTDOWN } from '../temporal/wait.ts';
import { parseArtifactUri } from './artifacts.ts';
import {
  errorBody,
  httpStatusOf,
  invalidParams,
  missingTasksCapability,
  protocolErrorBody,
  toProtocolError,
} from './errors.ts';
import { answerableRequests, type InputRounds, isRoundState, type RoundState } from './input-rounds.ts';
import { deliverTaskInput, taskInputAnswer } from './legacy-task-input.ts';
import { serveLegacyTasks } from './legacy-tasks.ts';
import type { McpDeps, TaskRequest } from './method-context.ts';
import { type Era, METHODS } from './methods.ts';
import { type Exchange, inExchange, observeTaskRequest, observeToolCall } from './observe.ts';
import { resourcesList, resourcesRead } from './resources.ts';
import { type ListenRequest, TaskSubscriptions } from './subscriptions-listen.ts';
import { tasksCancel, tasksGet, tasksUpdate } from './tasks.ts';
import { describeIssues } from './tool-definition.ts';
import { callTool } from './tools-call.ts';
import { CatalogTools } from './tools-list.ts';

/** Longest a shutdown waits for the tool calls in flight to answer before closing their exchanges. */
const DRAIN_CALLS_MS = 5_000;

/** Whether a request may receive a task: its client capabilities declare the Tasks extension. */
export function declaresTasksExtension(capabilities: object | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const value = extensions?.[TASKS_EXTENSION];
  return typeof value === 'object' && value !== null;
}

const SERVER_INFO = { name: 'temporal-mcp-gateway', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'Long-running tools backed by a durable workflow engine. A start tool waits a while; if the work is not ' +
  'done it returns a workflow_id: poll the result tool its answer names with that exact id, waiting ' +
  'poll_after_seconds between polls, until the status is no longer "running".';

/** The principal of every caller when the gateway runs without authentication (loopback only). */
export const ANONYMOUS = 'anonymous';

/** The caller a request was admitted as: the principal the HTTP layer put in its authInfo. */
function callerFrom(authInfo: AuthInfo | undefined): Caller {
  const principal = authInfo?.clientId || ANONYMOUS;
  return authInfo?.extra?.everyScope === false ? { principal, scopes: authInfo.scopes } : { principal };
}

// tasks/* params are checked inside the handler, after the capability check, so a client without
// the extension always learns that first.
const anyParams = z.looseObject({});
const taskIdParams = z.object({ taskId: z.string() });

/** The Tasks extension's methods (their declarations in methods.ts), by name. */
const TASK_HANDLERS: Record<string, (request: TaskRequest) => Promise<object>> = {
  'tasks/get': tasksGet,
  'tasks/update': tasksUpdate,
  'tasks/cancel': tasksCancel,
};

/** The task ids the HTTP layer parsed from the request (methods.ts): the value, or the text as given. */
function parsedTaskIds(authInfo: AuthInfo | undefined): ParsedTaskIds {
  const tasks = authInfo?.extra?.tasks as readonly TaskRef[] | undefined;
  return (taskId) => tasks?.find((task) => task.id === taskId) ?? taskId;
}

/** Whether a subscriptions/listen asks for tasks (the Tasks extension's filter), not the SDK's own events. */
function listensToTasks({ method, params }: Envelope): boolean {
  const notifications = params.notifications as { taskIds?: unknown } | undefined;
  return method === 'subscriptions/listen' && Array.isArray(notifications?.taskIds);
}

/** One request as the HTTP layer hands it over. */
export interface McpRequest {
  request: Request;
  authInfo: AuthInfo;
  parsedBody: unknown;
  /** What the body says about itself, as the HTTP layer read it. */
  envelope: Envelope;
  /** The request's protocol classification, as the HTTP layer made it judging its headers. */
  route: InboundClassificationOutcome;
  /** The request's logger and answer, shared with the HTTP layer. */
  exchange: Exchange;
  /**
   * Aborts when the client goes away: the HTTP layer's own signal, not `request.signal`, which
   * follows it only as long as the Request object lives (a stream outlives it).
   */
  callerLeft: AbortSignal;
}

export class McpHandler {
  private readonly tools: CatalogTools;
  private readonly handler: ReturnType<typeof createMcpHandler>;
  private readonly subscriptions: TaskSubscriptions;
  /** The parts 2025-11-25 task methods use: tasks/result streams are followed like push streams. */
  private readonly legacyDeps: McpDeps & { subscriptions: TaskSubscriptions };
  /** Signs input_required answers' requestState: HMAC with a key of the server secret, bound to the caller. */
  private readonly requestStates;
  /** Aborts at shutdown: waiting tool calls answer their handles, task streams end. */
  private readonly stopping = new AbortController();
  /** tools/call answers not yet given. */
  private readonly calls = new Set<Promise<unknown>>();

  constructor(private readonly deps: McpDeps) {
    const { timing, clientWaitBudgets } = deps;
    this.tools = new CatalogTools(deps.catalog, {
      ...{ starts: deps.starts, waits: deps.waits, views: deps.views, actions: deps.actions },
      recentRuns: deps.recentRuns,
      timing,
      stopping: this.stopping.signal,
      ...(clientWaitBudgets ? { clientWaitBudgets } : {}),
      ...(deps.hostTools ? { hostTools: deps.hostTools } : {}),
    });
    this.requestStates = createRequestStateCodec<RoundState>({
      key: deps.requestStateKey,
      ttlSeconds: deps.requestStateTtlSeconds,
      bind: (ctx) => callerFrom(ctx.http?.authInfo).principal,
    });
    this.handler = createMcpHandler(({ authInfo, era }) => this.create(authInfo, era), {
      onerror: deps.onError,
    });
    this.subscriptions = new TaskSubscriptions(deps);
    this.legacyDeps = { ...deps, subscriptions: this.subscriptions };
  }

  /**
   * Serves one MCP request. A subscriptions/listen for tasks is served here, past the SDK's
   * handler: the SDK's listen router carries only its own list-changed and resource events, and
   * answers before any handler of ours could take over.
   */
  fetch(mcpRequest: McpRequest): Promise<Response> {
    return inExchange(mcpRequest.exchange, () => this.serve(mcpRequest));
  }

  private serve(mcpRequest: McpRequest): Promise<Response> {
    const { request, authInfo, parsedBody, envelope } = mcpRequest;
    if (listensToTasks(envelope)) return this.listen(mcpRequest);
    // A 2025-11-25 client's answer to a task's input request: for the run, wherever it was asked.
    const answer = envelope.method === undefined ? taskInputAnswer(parsedBody) : undefined;
    if (answer) return deliverTaskInput(answer, callerFrom(authInfo), this.deps);
    const served = () =>
      this.handler.fetch(request, { authInfo, ...(parsedBody === undefined ? {} : { parsedBody }) });
    // The SDK's own listen stream (no taskIds) is one of the caller's streams all the same.
    if (envelope.method === 'subscriptions/listen' && mcpRequest.route.kind === 'modern')
      return this.subscriptions.counted(envelope.id, callerFrom(authInfo).principal, served);
    return served();
  }

  /** subscriptions/listen for tasks, judged first by the SDK's own rules (envelope against headers, revision). */
  private async listen({
    request,
    authInfo,
    parsedBody,
    envelope,
    route,
    callerLeft,
  }: McpRequest): Promise<Response> {
    const { id } = envelope;
    if (route.kind === 'legacy' || id === undefined)
      return this.handler.fetch(request, { authInfo, parsedBody });
    if (route.kind === 'reject') {
      return Response.json(errorBody(id, route.code, route.message, route.data as Record<string, unknown>), {
        status: route.httpStatus,
      });
    }
    try {
      return await observeTaskRequest('subscriptions/listen', undefined, async () => {
        const revision = route.classification.revision;
        if (revision !== MODERN_PROTOCOL_VERSION) {
          const requested = revision ?? 'unknown';
          throw new UnsupportedProtocolVersionError({ supported: [MODERN_PROTOCOL_VERSION], requested });
        }
        const listen = parsedBody as ListenRequest;
        const capabilities = listen.params._meta?.[META.clientCapabilities] as object | undefined;
        if (METHODS['subscriptions/listen']?.tasksExtension && !declaresTasksExtension(capabilities))
          throw missingTasksCapability();
        return this.subscriptions.serve(listen, callerFrom(authInfo), callerLeft, parsedTaskIds(authInfo));
      });
    } catch (err) {
      const error = toProtocolError(err);
      return Response.json(protocolErrorBody(id, error), { status: httpStatusOf(error) });
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
    await this.handler.close();
  }

  close(): Promise<void> {
    return this.handler.close();
  }

  /**
   * A server for one request. 2026-07-28 (`modern`) requests see the Tasks extension; 2025-era ones
   * the revision's own tasks (SEP-1686), which a call asks for with `params.task`. A client of
   * neither gets start/poll handles.
   */
  private create(authInfo: AuthInfo | undefined, era: Era): Server {
    const caller = callerFrom(authInfo);
    const named = parsedTaskIds(authInfo);
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
    server.setRequestHandler('tools/list', () => this.tools.list() as never);
    server.setRequestHandler('tools/call', (request, ctx) => {
      const tool = this.tools.byName.has(request.params.name) ? request.params.name : 'unknown';
      const rounds = era === 'modern' ? this.inputRounds(server, ctx) : undefined;
      const answer = observeToolCall(tool, () =>
        callTool(this.tools.byName, {
          ...{ server, request, ctx, caller, era, named },
          ...(era === 'legacy'
            ? { takesTasks: request.params.task !== undefined, legacyTasks: true }
            : { takesTasks: declaresTasksExtension(server.getClientCapabilities()) }),
          ...(rounds ? { rounds } : {}),
        }),
      );
      this.calls.add(answer);
      const done = () => this.calls.delete(answer);
      answer.then(done, done);
      return answer;
    });
    if (era === 'legacy') serveLegacyTasks(server, { caller, named }, this.legacyDeps, this.stopping.signal);
    else
      for (const [method, declaration] of Object.entries(METHODS)) {
        if (!declaration.eras.includes('modern') || !declaration.nameParam) continue;
        const handle = TASK_HANDLERS[method];
        if (!handle) throw new Error(`${method} is declared without a handler`);
        this.serveTaskMethod(server, authInfo, method, handle);
      }
    this.serveArtifacts(server, caller);
    return server;
  }

  /** A 2026-07-28 call's multi-round-trip material (the SDK verified its requestState already). */
  private inputRounds(server: Server, ctx: ServerContext): InputRounds {
    const resumes = ctx.mcpReq.requestState<RoundState>();
    const capabilities = server.getClientCapabilities();
    return {
      ...(isRoundState(resumes) ? { resumes } : {}),
      ...(ctx.mcpReq.inputResponses ? { responses: ctx.mcpReq.inputResponses } : {}),
      answerable: (requests) => answerableRequests(requests, capabilities),
      mint: (state) => this.requestStates.mint(state, ctx),
    };
  }

  /** A tasks/* method: only for requests that declare the extension (-32021), then its params checked. */
  private serveTaskMethod(
    server: Server,
    authInfo: AuthInfo | undefined,
    method: string,
    handle: (request: TaskRequest) => Promise<object>,
  ): void {
    const tasksExtension = METHODS[method]?.tasksExtension === true;
    server.setRequestHandler(method, { params: anyParams }, (params, ctx) =>
      observeTaskRequest(method, params.taskId, async () => {
        if (tasksExtension && !declaresTasksExtension(server.getClientCapabilities()))
          throw missingTasksCapability();
        const parsed = taskIdParams.safeParse(params);
        if (!parsed.success) throw invalidParams(`Invalid params: ${describeIssues(parsed.error)}`);
        const { taskId } = parsed.data;
        const caller = callerFrom(authInfo);
        const request = {
          taskId,
          task: parsedTaskIds(authInfo)(taskId),
          params,
          ctx,
          caller,
          deps: this.deps,
        };
        return (await handle(request)) as never;
      }),
    );
  }

  /** resources/read and resources/list: the artifacts of the caller's completed runs. */
  private serveArtifacts(server: Server, caller: Caller): void {
    server.setRequestHandler('resources/read', (request) => {
      const uri = request.params.uri;
      return observeTaskRequest(
        'resources/read',
        parseArtifactUri(uri)?.taskId,
        () => resourcesRead(uri, caller, this.deps) as never,
      );
    });
    server.setRequestHandler('resources/list', (request) =>
      observeTaskRequest(
        'resources/list',
        undefined,
        () => resourcesList(request.params?.cursor, caller, this.deps) as never,
      ),
    );
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }) as never);
  }
}
