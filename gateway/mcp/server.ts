// The MCP side of the gateway: the SDK's stateless HTTP handler, a fresh Server per request bound
// to its caller, and every method the gateway serves: tools/list and tools/call (the catalog's
// tools, tools.ts), tasks/get, tasks/update and tasks/cancel (the Tasks extension, served from
// Temporal), and subscriptions/listen for tasks (push.ts). Each request is counted and logged once
// (one metric increment, one line carrying the task id it is about).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AuthInfo,
  type CallToolRequest,
  type CallToolResult,
  classifyInboundRequest,
  createMcpHandler,
  createRequestStateCodec,
  ProtocolError,
  Server,
  type ServerContext,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { type ArtifactStore, ArtifactTooLargeError } from '../../common/artifact-store.ts';
import { metrics, type TaskRequestOutcome, type ToolCallOutcome } from '../shared/metrics.ts';
import { MODERN_PROTOCOL_VERSION, TASKS_EXTENSION } from '../shared/protocol.ts';
import { annotateSpan } from '../shared/tracing.ts';
import { type Caller, SHUTDOWN, type TemporalBackend } from '../temporal/backend.ts';
import {
  answerableRequests,
  declaresTasksExtension,
  emptyAck,
  getTaskResult,
  type TaskTiming,
} from './answers.ts';
import {
  artifactReferences,
  isExpired,
  listedResource,
  parseArtifactUri,
  resourceContents,
} from './artifacts.ts';
import type { Catalog } from './catalog.ts';
import {
  artifactCorrupt,
  artifactNotFound,
  artifactTooLarge,
  errorBody,
  forgedArtifactReference,
  httpStatusOf,
  INVALID_PARAMS,
  invalidArtifactUri,
  invalidParams,
  isResourceNotFound,
  isTaskNotFound,
  loggedMessage,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  missingClientCapabilities,
  missingTasksCapability,
  protocolErrorBody,
  taskNotFound,
  toProtocolError,
} from './errors.ts';
import { listensForTasks, type SubscriptionLimits, TaskSubscriptions } from './push.ts';
import {
  boundedResponses,
  describeIssues,
  durableTools,
  type InputRounds,
  type RoundState,
  type ToolAnswer,
  type ToolDefinition,
} from './tools.ts';

/** Longest a shutdown waits for the tool calls in flight to answer before closing their exchanges. */
const DRAIN_CALLS_MS = 5_000;

export const SERVER_INFO = { name: 'temporal-mcp-gateway', version: '0.1.0' } as const;

export const INSTRUCTIONS =
  'Long-running tools backed by a durable workflow engine. A start tool waits a while; if the work is not ' +
  'done it returns a workflow_id: poll the result tool its answer names with that exact id, waiting ' +
  'poll_after_seconds between polls, until the status is no longer "running".';

/** The principal of every caller when the gateway runs without authentication (loopback only). */
export const ANONYMOUS = 'anonymous';

export interface McpServerDeps {
  backend: TemporalBackend;
  catalog: Catalog;
  timing: TaskTiming;
  listen: SubscriptionLimits;
  /** How long an input_required answer's requestState stays valid. */
  requestStateTtlSeconds: number;
  /** Wait budgets per MCP client (lower-cased clientInfo.name); each tool's budget caps them. */
  clientWaitBudgets?: ReadonlyMap<string, number>;
  /** Where workers put large outputs, and the largest one resources/read answers. */
  artifacts: ArtifactSettings;
  onError?: (error: Error) => void;
}

export interface ArtifactSettings {
  store: ArtifactStore;
  readMaxBytes: number;
}

/** The caller a request was admitted as: the principal the HTTP layer put in its authInfo. */
export function callerFrom(authInfo: AuthInfo | undefined): Caller {
  return { principal: authInfo?.clientId || ANONYMOUS };
}

// ---- one metric and one log line per request -------------------------------------------------------

interface LogLine {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** The request's log as the HTTP layer gives it: its logger, bound to a task id once that is known. */
export interface RequestLog {
  bindTask(taskId: string | undefined): LogLine | undefined;
}

const requestLogs = new AsyncLocalStorage<RequestLog>();

/** Serves a request with its log reachable, so its tools/call or tasks/* line carries the task id. */
export function withRequestLog<T>(log: RequestLog, run: () => T): T {
  return requestLogs.run(log, run);
}

const logFor = (taskId: string | undefined) => requestLogs.getStore()?.bindTask(taskId);

interface AnswerLike {
  resultType?: unknown;
  taskId?: unknown;
  structuredContent?: unknown;
}

/** How a tools/call answer reads for the metrics: a task, a handle to poll, or a final result. */
export function toolCallOutcome(answer: unknown): ToolCallOutcome {
  const { resultType, structuredContent } = (answer ?? {}) as AnswerLike;
  if (resultType === 'task') return 'task';
  const status = (structuredContent as { status?: unknown } | undefined)?.status;
  return status === 'running' || status === 'input_required' ? 'start_poll' : 'inline';
}

/** The task or run a tools/call answer is about (its taskId or workflow_id). */
export function answerTaskId(answer: unknown): string | undefined {
  const { taskId, structuredContent } = (answer ?? {}) as AnswerLike;
  if (typeof taskId === 'string') return taskId;
  const id = (structuredContent as { workflow_id?: unknown } | undefined)?.workflow_id;
  return typeof id === 'string' ? id : undefined;
}

/** The status a tools/call answer reports: a task's, or the start/poll JSON's. */
function answerStatus(answer: unknown): string | undefined {
  const { structuredContent, status } = (answer ?? {}) as AnswerLike & { status?: unknown };
  const value = (structuredContent as { status?: unknown } | undefined)?.status ?? status;
  return typeof value === 'string' ? value : undefined;
}

export function taskRequestOutcome(err: unknown): TaskRequestOutcome {
  if (!(err instanceof ProtocolError)) return 'error';
  if (err.code === MISSING_REQUIRED_CLIENT_CAPABILITY) return 'missing_capability';
  if (isTaskNotFound(err) || isResourceNotFound(err)) return 'not_found';
  if (err.code === INVALID_PARAMS) return 'invalid_params';
  return 'error';
}

function errorFields(err: unknown): Record<string, unknown> {
  const code = err instanceof ProtocolError ? err.code : undefined;
  return { error: { code, message: loggedMessage(err) } };
}

/** Runs one tools/call (`tool` is the catalog's name, or "unknown"), counting and logging it. */
export async function observeToolCall<T>(tool: string, call: () => Promise<T>): Promise<T> {
  const elapsed = metrics.stopwatch();
  try {
    const answer = await call();
    const outcome = toolCallOutcome(answer);
    metrics.toolCall(tool, outcome);
    annotateSpan({
      'mcp.outcome': outcome,
      'mcp.task.id': answerTaskId(answer),
      'mcp.task.status': answerStatus(answer),
    });
    logFor(answerTaskId(answer))?.info({ tool, outcome, ms: Math.round(elapsed() * 1000) }, 'tools/call');
    return answer;
  } catch (err) {
    metrics.toolCall(tool, 'error');
    annotateSpan({ 'mcp.outcome': 'error' });
    const internal = !(err instanceof ProtocolError) || err.code !== INVALID_PARAMS;
    const log = logFor(undefined);
    const fields = { tool, outcome: 'error', ms: Math.round(elapsed() * 1000), ...errorFields(err) };
    if (internal) log?.warn(fields, 'tools/call failed');
    else log?.info(fields, 'tools/call refused');
    throw err;
  }
}

/** Runs one tasks/* or subscriptions/listen request, counting and logging it. */
export async function observeTaskRequest<T>(
  method: string,
  taskId: unknown,
  call: () => Promise<T>,
): Promise<T> {
  const elapsed = metrics.stopwatch();
  const log = logFor(typeof taskId === 'string' ? taskId : undefined);
  try {
    const answer = await call();
    metrics.taskRequest(method, 'ok');
    // A task's status ("working", ...); a subscription's answer is a stream, whose HTTP status is not one.
    const status = (answer as { status?: unknown } | undefined)?.status;
    annotateSpan({
      'mcp.outcome': 'ok',
      ...(typeof status === 'string' ? { 'mcp.task.status': status } : {}),
    });
    log?.info(
      {
        method,
        outcome: 'ok',
        ...(typeof status === 'string' ? { status } : {}),
        ms: Math.round(elapsed() * 1000),
      },
      method,
    );
    return answer;
  } catch (err) {
    const outcome = taskRequestOutcome(err);
    metrics.taskRequest(method, outcome);
    annotateSpan({ 'mcp.outcome': outcome });
    const fields = { method, outcome, ms: Math.round(elapsed() * 1000), ...errorFields(err) };
    if (outcome === 'error') log?.warn(fields, `${method} failed`);
    else log?.info(fields, `${method} refused`);
    throw err;
  }
}

// ---- the servers -------------------------------------------------------------------------------------

/**
 * A tool as tools/list shows it. 2026-07-28 requests also see each start tool's task support
 * (`execution.taskSupport`, as the Tasks extension declares it); a 2025-era client never gets
 * tasks, so it is not told of any.
 */
function listedTool(tool: ToolDefinition, era: 'legacy' | 'modern') {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(era === 'modern' && tool.taskSupport ? { execution: { taskSupport: tool.taskSupport } } : {}),
  };
}

// tasks/* params are checked inside the handler, after the capability check, so a client without
// the extension always learns that first.
const anyParams = z.looseObject({});
const taskIdParams = z.object({ taskId: z.string() });
// An elicitation's answer has an action; a sampling or roots answer is the bare result object.
const elicitationAnswer = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});
const otherAnswer = z
  .looseObject({})
  .refine((value) => !('action' in value) && Object.keys(value).length > 0, 'not an input response');
export const inputResponsesSchema = z.record(z.string(), z.union([elicitationAnswer, otherAnswer]));

function isRoundState(value: unknown): value is RoundState {
  const state = value as Partial<RoundState> | undefined;
  return (
    typeof state === 'object' &&
    state !== null &&
    typeof state.workflowId === 'string' &&
    typeof state.tool === 'string' &&
    typeof state.round === 'number'
  );
}

export class McpServers {
  private readonly tools: Map<string, ToolDefinition>;
  private readonly listed: Record<'legacy' | 'modern', ReturnType<typeof listedTool>[]>;
  private readonly handler: ReturnType<typeof createMcpHandler>;
  private readonly subscriptions: TaskSubscriptions;
  /** Signs input_required answers' requestState: HMAC with a key of the server secret, bound to the caller. */
  private readonly requestStates;

  /** Aborts at shutdown: waiting tool calls answer their handles, task streams end. */
  private readonly stopping = new AbortController();
  /** tools/call answers not yet given. */
  private readonly calls = new Set<Promise<unknown>>();

  constructor(private readonly deps: McpServerDeps) {
    const definitions = deps.catalog.tools.flatMap((tool) =>
      durableTools(tool, { ...deps, stopping: this.stopping.signal }),
    );
    this.tools = new Map(definitions.map((tool) => [tool.name, tool]));
    this.listed = {
      legacy: definitions.map((tool) => listedTool(tool, 'legacy')),
      modern: definitions.map((tool) => listedTool(tool, 'modern')),
    };
    this.requestStates = createRequestStateCodec<RoundState>({
      key: deps.backend.derivedKey('request-state'),
      ttlSeconds: deps.requestStateTtlSeconds,
      bind: (ctx) => callerFrom(ctx.http?.authInfo).principal,
    });
    this.handler = createMcpHandler(({ authInfo, era }) => this.create(callerFrom(authInfo), era), {
      onerror: deps.onError,
    });
    this.subscriptions = new TaskSubscriptions(deps);
  }

  /**
   * Serves one MCP request. A subscriptions/listen for tasks is served here, past the SDK's
   * handler: the SDK's listen router carries only its own list-changed and resource events, and
   * answers before any handler of ours could take over. The SDK's own rules still judge the request
   * first (its envelope against its headers, the protocol revision). `gone` aborts when the client
   * goes away: the HTTP layer's own signal, not `request.signal`, which follows it only as long as
   * the Request object lives (a stream outlives it, and a collected Request stops passing it on).
   */
  async fetch(
    request: Request,
    authInfo: AuthInfo,
    parsedBody: unknown,
    gone: AbortSignal = request.signal,
  ): Promise<Response> {
    const sdk = () =>
      this.handler.fetch(request, { authInfo, ...(parsedBody === undefined ? {} : { parsedBody }) });
    if (!listensForTasks(parsedBody)) return sdk();
    const { id } = parsedBody;
    const header = (name: string) => request.headers.get(name) ?? undefined;
    const route = classifyInboundRequest({
      httpMethod: request.method,
      protocolVersionHeader: header('mcp-protocol-version'),
      mcpMethodHeader: header('mcp-method'),
      mcpNameHeader: header('mcp-name'),
      body: parsedBody,
    });
    if (route.kind === 'legacy') return sdk();
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
        return this.subscriptions.serve(parsedBody, callerFrom(authInfo), gone);
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
   * A server for one request. Only 2026-07-28 (`modern`) requests can receive tasks, so only they
   * see the Tasks extension advertised; a 2025-era client always gets start/poll handles.
   */
  create(caller: Caller, era: 'legacy' | 'modern'): Server {
    const extensions = era === 'modern' ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {}, resources: {}, ...extensions },
      instructions: INSTRUCTIONS,
      // A tampered, expired or another caller's requestState is refused (-32602) before any handler.
      requestState: { verify: (state, ctx) => this.requestStates.verify(state, ctx) },
    });
    const listed = this.listed[era];
    server.setRequestHandler('tools/list', () => ({ tools: listed }) as never);
    server.setRequestHandler('tools/call', (request, ctx) => {
      const answer = observeToolCall(
        this.tools.has(request.params.name) ? request.params.name : 'unknown',
        () => this.callTool(server, request, ctx, caller, era),
      );
      this.calls.add(answer);
      const done = () => this.calls.delete(answer);
      answer.then(done, done);
      return answer;
    });
    this.serveTaskMethods(server, caller);
    this.serveArtifacts(server, caller);
    return server;
  }

  /**
   * resources/read and resources/list: the artifacts of the caller's completed runs. A URI names a
   * run and an artifact; the bytes are served only when the run is the caller's, its result holds
   * that reference, the reference has not expired, and the stored bytes match its size and digest.
   */
  private serveArtifacts(server: Server, caller: Caller): void {
    server.setRequestHandler('resources/read', (request) => {
      const uri = request.params.uri;
      return observeTaskRequest('resources/read', parseArtifactUri(uri)?.taskId, async () => {
        try {
          return (await this.readArtifact(uri, caller)) as never;
        } catch (err) {
          throw toProtocolError(err);
        }
      });
    });
    server.setRequestHandler('resources/list', (request) =>
      observeTaskRequest('resources/list', undefined, async () => {
        try {
          const page = await this.deps.backend.completedRuns(caller, request.params?.cursor);
          const now = Date.now();
          const resources = page.runs.flatMap(({ workflowId, result }) =>
            artifactReferences(result)
              .filter((ref) => !isExpired(ref, now))
              .map((ref) => listedResource(workflowId, ref)),
          );
          return { resources, ...(page.cursor ? { nextCursor: page.cursor } : {}) } as never;
        } catch (err) {
          throw toProtocolError(err);
        }
      }),
    );
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }) as never);
  }

  private async readArtifact(uri: string, caller: Caller) {
    const { backend, artifacts } = this.deps;
    const named = parseArtifactUri(uri);
    if (!named) throw invalidArtifactUri(uri);
    const view = await backend.view(named.taskId, caller);
    if (view?.state.status !== 'completed') throw artifactNotFound(uri);
    const ref = artifactReferences(view.state.result).find((r) => r.id === named.artifactId);
    if (!ref) throw forgedArtifactReference();
    if (isExpired(ref, Date.now())) throw artifactNotFound(uri);
    if (ref.size > artifacts.readMaxBytes) throw artifactTooLarge(artifacts.readMaxBytes);
    let bytes: Buffer | undefined;
    try {
      bytes = await artifacts.store.get(ref.id, artifacts.readMaxBytes);
    } catch (err) {
      if (err instanceof ArtifactTooLargeError) throw artifactTooLarge(artifacts.readMaxBytes);
      throw err;
    }
    if (!bytes) throw artifactNotFound(uri);
    if (bytes.length !== ref.size || createHash('sha256').update(bytes).digest('hex') !== ref.sha256)
      throw artifactCorrupt();
    return { contents: [resourceContents(named.taskId, ref, bytes)] };
  }

  private async callTool(
    server: Server,
    request: CallToolRequest,
    ctx: ServerContext,
    caller: Caller,
    era: 'legacy' | 'modern',
  ) {
    const { name, arguments: raw } = request.params;
    const tool = this.tools.get(name);
    if (!tool) throw invalidParams(`Unknown tool: ${name}`);
    const takesTasks = declaresTasksExtension(server.getClientCapabilities());
    // A tool that only runs as a task refuses a client without the extension before anything starts.
    if (tool.taskSupport === 'required' && !takesTasks) throw missingTasksCapability();
    if (era === 'modern' && tool.requiredClientCapabilities) {
      const declared = (server.getClientCapabilities() ?? {}) as Record<string, unknown>;
      const missing = tool.requiredClientCapabilities.filter((name) => typeof declared[name] !== 'object');
      if (missing.length > 0) throw missingClientCapabilities(missing);
    }
    let args: Record<string, unknown>;
    try {
      args = tool.parse(raw ?? {});
    } catch (err) {
      throw invalidParams(`Invalid arguments for tool ${name}: ${(err as Error).message}`);
    }
    let answer: ToolAnswer;
    try {
      const rounds = era === 'modern' ? this.inputRounds(server, ctx) : undefined;
      answer = await tool.handler(args, { server, ctx, caller, takesTasks, ...(rounds ? { rounds } : {}) });
    } catch (err) {
      throw toProtocolError(err);
    }
    if ('resultType' in answer && (answer.resultType === 'task' || answer.resultType === 'input_required'))
      return answer as never;
    return server.projectCallToolResult(answer as CallToolResult, undefined) as never;
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

  /** tasks/get, tasks/update, tasks/cancel: only for requests that declare the extension (-32021). */
  private serveTaskMethods(server: Server, caller: Caller): void {
    const { backend, catalog, timing } = this.deps;
    const serve = (
      method: string,
      handle: (taskId: string, params: Record<string, unknown>, ctx: ServerContext) => Promise<object>,
    ) =>
      server.setRequestHandler(method, { params: anyParams }, (params, ctx) =>
        observeTaskRequest(method, params.taskId, async () => {
          if (!declaresTasksExtension(server.getClientCapabilities())) throw missingTasksCapability();
          const parsed = taskIdParams.safeParse(params);
          if (!parsed.success) throw invalidParams(`Invalid params: ${describeIssues(parsed.error)}`);
          try {
            return (await handle(parsed.data.taskId, params, ctx)) as never;
          } catch (err) {
            throw toProtocolError(err);
          }
        }),
      );

    serve('tasks/get', async (taskId) => {
      // The id names its tool, so the progress query goes out beside the describe.
      const progressQuery = catalog.toolOfTask(taskId)?.progressQuery;
      const view = await backend.view(taskId, caller, { progressQuery });
      if (!view) throw taskNotFound();
      return getTaskResult(view, catalog.toolOfRun(view.tool), timing);
    });

    serve('tasks/cancel', async (taskId) => {
      if (!(await backend.cancel(taskId, caller))) throw taskNotFound();
      return emptyAck();
    });

    serve('tasks/update', async (taskId, params, ctx) => {
      // The SDK lifts inputResponses out of the params (it shares the multi-round-trip field name).
      const parsed = inputResponsesSchema.safeParse(ctx.mcpReq.inputResponses ?? params.inputResponses);
      if (!parsed.success) throw invalidParams(`Invalid inputResponses: ${describeIssues(parsed.error)}`);
      const tool = catalog.toolOfTask(taskId);
      if (!tool) throw taskNotFound();
      if (!tool.inputSignal) throw invalidParams(`Tasks of ${tool.name} take no input`);
      const responses = boundedResponses(parsed.data);
      if (!(await backend.sendInput(taskId, caller, tool.inputSignal, responses, tool.progressQuery)))
        throw taskNotFound();
      return emptyAck();
    });
  }
}
