// A catalog tool as MCP tools: its start and its start/poll companions (result, cancel, respond),
// for one caller's runs of that tool only. The start checks the arguments, starts the workflow,
// waits at most the tool's budget (reporting progress when asked), then answers in one of three
// shapes: the result inline; a task handle for a request that declared the Tasks extension;
// otherwise the start/poll "running" JSON the companions continue. Companions answer with the
// start/poll JSON too. Argument schemas sit beside their handlers.

import { setTimeout as delay } from 'node:timers/promises';
import type { CallToolResult, Server, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import * as z from 'zod/v4';
import type { InputRequest, InputResponse, InputResponses } from '../../workflows/mcp-contract.ts';
import { META } from '../shared/protocol.ts';
import { type Caller, SHUTDOWN, type TemporalBackend, type WaitOutcome } from '../temporal/backend.ts';
import type { ExecutionView, RequestOrigin } from '../temporal/runs.ts';
import {
  type CreateTaskResult,
  createTaskResult,
  hasInputRequests,
  type InputRequiredAnswer,
  inputRequiredAnswer,
  notFoundJson,
  type ProgressReport,
  startPollJson,
  startPollOutputSchema,
  type TaskTiming,
  toolResult,
} from './answers.ts';
import {
  type CatalogTool,
  type ClientCapabilityName,
  describeSchemaError,
  type JsonSchema,
  jsonSchemaOf,
  type TaskSupport,
} from './catalog.ts';
import {
  cancelDescription,
  respondDescription,
  resultDescription,
  startDescription,
} from './descriptions.ts';
import { invalidParams } from './errors.ts';

/**
 * What a tool handler may answer: a CallToolResult, a task handle (resultType "task"), or a
 * request for input (resultType "input_required").
 */
export type ToolAnswer = CallToolResult | CreateTaskResult | InputRequiredAnswer;

/** One call: the request's server (its client capabilities), context and caller. */
export interface ToolCall {
  server: Server;
  ctx: ServerContext;
  caller: Caller;
  /** Whether this request may receive a task (it declared the Tasks extension). */
  takesTasks: boolean;
  /** Multi-round-trip input (2026-07-28 requests only); absent: input goes through tasks or companions. */
  rounds?: InputRounds;
}

/**
 * A 2026-07-28 request's multi-round-trip material: the run a verified requestState names, the
 * answers it carries, which input requests this client can answer, and how to mint the state of
 * the next round.
 */
export interface InputRounds {
  /** The run the retried call continues (from its verified requestState); absent on a first call. */
  resumes?: RoundState;
  /** The call's inputResponses, as the SDK lifted them (untrusted). */
  responses?: Record<string, unknown>;
  answerable(requests: Record<string, InputRequest>): Record<string, InputRequest>;
  mint(state: RoundState): Promise<string>;
}

/** What a requestState carries: the run, the tool it belongs to, and which round asked. */
export interface RoundState {
  workflowId: string;
  tool: string;
  round: number;
}

export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** A start tool's task support (Tasks extension); companions have none. */
  taskSupport?: TaskSupport;
  /** Client capabilities a call of the start tool needs (2026-07-28 requests are checked). */
  requiredClientCapabilities?: ClientCapabilityName[];
  /** The checked arguments (defaults filled in); throws an Error naming the first bad field. */
  parse(raw: unknown): Record<string, unknown>;
  handler(args: Record<string, unknown>, call: ToolCall): Promise<ToolAnswer>;
}

export interface ToolDeps {
  backend: TemporalBackend;
  timing: TaskTiming;
  /** Aborts when the gateway shuts down: a waiting call stops waiting and answers its handle. */
  stopping?: AbortSignal;
  /** Wait budgets per MCP client (lower-cased clientInfo.name); each tool's budget caps them. */
  clientWaitBudgets?: ReadonlyMap<string, number>;
}

/** How long a call waits for its run: the tool's budget, or less for a client given a budget of its own. */
export function waitBudgetFor(
  tool: Pick<CatalogTool, 'waitBudgetMs'>,
  clientName: string | undefined,
  budgets: ReadonlyMap<string, number> | undefined,
): number {
  const own = clientName === undefined ? undefined : budgets?.get(clientName.toLowerCase());
  return own === undefined ? tool.waitBudgetMs : Math.min(own, tool.waitBudgetMs);
}

/** "difficulty: Too big: expected int to be <=40" — every problem, naming the field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/**
 * Validates `value` (a copy: defaults are filled into it); returns the copy, or throws an Error
 * whose message names the first bad field.
 */
export function validated<T>(validate: ValidateFunction, value: unknown): T {
  const copy = structuredClone(value);
  if (validate(copy)) return copy as T;
  const first = validate.errors?.[0];
  throw new Error(first ? describeSchemaError(first) : 'does not match the schema');
}

/** A tool whose arguments are a zod schema (the gateway's own companions). */
function zodTool<S extends z.ZodObject>(
  tool: Omit<ToolDefinition, 'inputSchema' | 'parse' | 'handler'> & {
    args: S;
    handler(args: z.infer<S>, call: ToolCall): Promise<ToolAnswer>;
  },
): ToolDefinition {
  const { args, handler, ...rest } = tool;
  return {
    ...rest,
    inputSchema: { type: 'object', ...jsonSchemaOf(args, 'input') },
    parse(raw) {
      const parsed = args.safeParse(raw);
      if (!parsed.success) throw new Error(describeIssues(parsed.error));
      return parsed.data as Record<string, unknown>;
    },
    handler: (parsed, call) => handler(parsed as z.infer<S>, call),
  };
}

// ---- the companions' arguments ------------------------------------------------------------------

const workflowId = (startTool: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .describe(`The workflow_id returned by ${startTool}, copied exactly. Never invent or alter it.`);

export const workflowIdArgs = (startTool: string) => z.object({ workflow_id: workflowId(startTool) });

const respondArgs = (startTool: string) =>
  z.object({
    workflow_id: workflowId(startTool),
    key: z
      .string()
      .min(1)
      .max(200)
      .describe('The key of the input request being answered, exactly as it appears in input_requests.'),
    action: z
      .enum(['accept', 'decline', 'cancel'])
      .describe(
        '"accept" with the form content, "decline" when the person says no, "cancel" when they dismiss it.',
      ),
    content: z
      .record(z.string().max(100), z.union([z.string().max(1_000), z.number(), z.boolean()]))
      .optional()
      .describe(
        'The person\'s answers to the form fields (for accept), e.g. {"approve": true, "note": "ok"}.',
      ),
  });

// ---- progress while a start waits -----------------------------------------------------------------

export const PROGRESS_INTERVAL_MS = 1_000;

/** The request's progress token, if it asked for progress. */
function progressToken(ctx: ServerContext): string | number | undefined {
  const token = (ctx.mcpReq._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/**
 * Runs `work` while sending notifications/progress (the response is an SSE stream then): `first`
 * at once, then what `read` returns whenever its progress is above the last one sent (the spec
 * wants it to grow with every notification). Reading stops when `work` settles; a failed read or
 * notification is skipped, never fatal.
 */
export async function withProgress<T>(
  ctx: ServerContext,
  token: string | number,
  first: ProgressReport,
  read: () => Promise<ProgressReport | undefined>,
  work: Promise<T>,
  intervalMs = PROGRESS_INTERVAL_MS,
): Promise<T> {
  const send = (report: ProgressReport) =>
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, ...report } })
      .catch(() => {});
  let done = false;
  let wake: () => void = () => {};
  const settled = work.finally(() => {
    done = true;
    wake();
  });
  const loop = (async () => {
    let last = first;
    await send(first);
    while (!done) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, intervalMs).unref();
      });
      if (done) break;
      const report = await read().catch(() => undefined);
      if (!done && report && report.progress > last.progress) {
        last = report;
        await send(report);
      }
    }
  })();
  try {
    return await settled;
  } finally {
    await loop;
  }
}

// ---- who is asking, for the Web UI --------------------------------------------------------------

const MAX_ORIGIN_LENGTH = 200;

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_ORIGIN_LENGTH);
}

/**
 * Which MCP client sent the request, under which protocol revision: a 2026-07-28 request names its
 * client in its `_meta` envelope; a 2025-era request carries only the MCP-Protocol-Version header
 * (its client named itself in `initialize`, an earlier request the gateway keeps nothing of).
 */
export function requestOrigin(
  server: Pick<Server, 'getClientVersion' | 'getNegotiatedProtocolVersion'>,
  ctx: Pick<ServerContext, 'mcpReq' | 'http'>,
): RequestOrigin {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const info = (envelope[META.clientInfo] ?? server.getClientVersion()) as
    | { name?: unknown; version?: unknown }
    | undefined;
  const headers = ctx.http?.req?.headers;
  const origin: RequestOrigin = {
    clientName: text(info?.name),
    clientVersion: text(info?.version),
    protocolVersion:
      text(envelope[META.protocolVersion]) ??
      text(headers?.get('mcp-protocol-version')) ??
      text(server.getNegotiatedProtocolVersion()),
    userAgent: text(headers?.get('user-agent')),
  };
  return Object.fromEntries(Object.entries(origin).filter(([, v]) => v !== undefined)) as RequestOrigin;
}

// ---- the tools ------------------------------------------------------------------------------------

/** The content of an accepted form must carry every required field with the requested type. */
export function checkFormContent(request: InputRequest, content: Record<string, unknown> | undefined): void {
  if (request.method !== 'elicitation/create') return;
  const { properties, required = [] } = request.params.requestedSchema;
  for (const field of required) {
    if (content?.[field] === undefined)
      throw invalidParams(`content.${field}: required by the input request`);
  }
  for (const [field, value] of Object.entries(content ?? {})) {
    const expected = properties[field]?.type;
    if (!expected) throw invalidParams(`content.${field}: not a field of the input request`);
    const actual = typeof value;
    const fits = expected === 'integer' ? Number.isInteger(value) : actual === expected;
    if (!fits) throw invalidParams(`content.${field}: expected ${expected}, got ${actual}`);
  }
}

function notOutstanding(key: string): string {
  return (
    `"${key}" is not an outstanding input request of this run (unknown, already answered or replaced by a newer ` +
    'request); nothing was sent. Use only keys from the latest input_requests.'
  );
}

// ---- waiting for a run, or for the input it asks ------------------------------------------------

/** Pauses between looks at whether a waiting run asks for input: every 100 ms in its first second, then up to every second. */
const INPUT_LOOKS_MS = [25, 50, 100, 100, 100, 100, 100, 200, 400, 800, 1_000];

type WaitEnd = WaitOutcome | { kind: 'input'; requests: Record<string, InputRequest> };

/** Largest one input response may be, as JSON: a form's answers, not a payload. */
export const MAX_INPUT_RESPONSE_BYTES = 16 * 1024;

/** The responses, each checked against MAX_INPUT_RESPONSE_BYTES (-32602 naming the key). */
export function boundedResponses<T extends Record<string, unknown>>(responses: T): T {
  for (const [key, value] of Object.entries(responses)) {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > MAX_INPUT_RESPONSE_BYTES)
      throw invalidParams(
        `Invalid inputResponses: "${key.slice(0, 100)}" is ${bytes} bytes; at most ${MAX_INPUT_RESPONSE_BYTES} per response`,
      );
  }
  return responses;
}

/** The answers that look like answers (JSON objects); the workflow ignores keys it did not ask. */
export function formAnswers(responses: Record<string, unknown> | undefined): InputResponses {
  const answers: InputResponses = {};
  for (const [key, value] of Object.entries(responses ?? {})) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const action = (value as { action?: unknown }).action;
    if (action !== undefined && action !== 'accept' && action !== 'decline' && action !== 'cancel') continue;
    answers[key] = value as InputResponse;
  }
  return answers;
}

/**
 * Waits the tool's budget for the run to close. With multi-round-trip input it also watches the
 * run's progress query, and ends as soon as the run asks for input this client can answer.
 * Answers a first call brought along are signalled when the run asks for their keys (once each),
 * and the wait goes on.
 */
async function waitOrAsk(
  backend: TemporalBackend,
  tool: CatalogTool,
  workflowId: string,
  caller: Caller,
  gone: AbortSignal,
  rounds: InputRounds | undefined,
  carried: Record<string, unknown> | undefined,
  stopping: AbortSignal | undefined,
  waitBudgetMs: number,
): Promise<WaitEnd> {
  const { progressQuery: query, inputSignal } = tool;
  if (!rounds || !query || !inputSignal) return backend.wait(workflowId, waitBudgetMs, gone, stopping);
  const unsent = new Map(Object.entries(formAnswers(carried)));
  const interrupt = new AbortController();
  const stop = () => interrupt.abort(SHUTDOWN);
  stopping?.addEventListener('abort', stop, { once: true });
  if (stopping?.aborted) stop();
  const deadline = Date.now() + waitBudgetMs;
  let asked: Record<string, InputRequest> | undefined;
  const watch = async () => {
    for (let look = 0; ; look++) {
      const pause = INPUT_LOOKS_MS[Math.min(look, INPUT_LOOKS_MS.length - 1)] as number;
      if (Date.now() + pause >= deadline) return;
      await delay(pause, undefined, { signal: interrupt.signal }).catch(() => {});
      if (interrupt.signal.aborted || gone.aborted) return;
      const outstanding = (await backend.progressOf(workflowId, caller, query))?.inputRequests ?? {};
      const due = [...unsent].filter(([key]) => key in outstanding);
      if (due.length > 0) {
        for (const [key] of due) unsent.delete(key);
        await backend.sendInput(workflowId, caller, inputSignal, Object.fromEntries(due));
        continue;
      }
      const answerable = rounds.answerable(outstanding);
      if (Object.keys(answerable).length > 0) {
        asked = answerable;
        interrupt.abort('input_required');
        return;
      }
    }
  };
  const watching = watch().catch(() => {}); // a failed look ends the looking, never the wait
  const outcome = await backend.wait(workflowId, waitBudgetMs, gone, interrupt.signal);
  interrupt.abort();
  stopping?.removeEventListener('abort', stop);
  await watching;
  if (outcome.kind === 'closed' || !asked) return outcome;
  return { kind: 'input', requests: asked };
}

/** A catalog tool's MCP tools: its start, result and cancel companions, and respond where it takes input. */
export function durableTools(
  tool: CatalogTool,
  { backend, timing, stopping, clientWaitBudgets }: ToolDeps,
): ToolDefinition[] {
  const { presentation, companions, progressQuery } = tool;
  // Every answer of the tool and its companions is the start/poll JSON: one schema for all.
  const outputSchema = startPollOutputSchema(tool.outputSchema ?? {});
  const answer = (view: Pick<ExecutionView, 'workflowId' | 'state'> & { createdAt?: Date }) =>
    toolResult(startPollJson(view, tool, timing.pollIntervalFor(view)), tool);
  const notFound = (id: string) => toolResult(notFoundJson(id, tool), tool);
  /** The caller's run of this tool, as it is now; undefined when it is not one. */
  const view = async (id: string, caller: Caller) => {
    const found = await backend.view(id, caller, { progressQuery, idPrefix: tool.idPrefix });
    return found?.tool === tool.name ? found : undefined;
  };
  /** After an action: the result if the run closes within the budget, else its state now. */
  const budgetOf = ({ server, ctx }: ToolCall) =>
    waitBudgetFor(tool, requestOrigin(server, ctx).clientName, clientWaitBudgets);
  const settle = async (id: string, call: ToolCall) => {
    const { caller, ctx } = call;
    const outcome = await backend.wait(id, budgetOf(call), ctx.mcpReq.signal, stopping);
    if (outcome.kind === 'closed') return answer({ workflowId: id, state: outcome.state });
    const now = await view(id, caller);
    return now ? answer(now) : notFound(id);
  };

  const start: ToolDefinition = {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: startDescription(tool),
    inputSchema: tool.inputSchema,
    // A tool whose results are MCP tool results lists only the schema its entry gives them.
    ...(tool.resultShape === 'toolResult'
      ? tool.outputSchema
        ? { outputSchema: tool.outputSchema }
        : {}
      : { outputSchema }),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    taskSupport: tool.taskSupport,
    ...(tool.requiredClientCapabilities
      ? { requiredClientCapabilities: tool.requiredClientCapabilities }
      : {}),
    parse: (raw) => validated<Record<string, unknown>>(tool.validateArguments, raw),
    async handler(args, call) {
      const { server, ctx, caller, rounds } = call;
      const takesTasks = call.takesTasks && tool.taskSupport !== 'forbidden';
      let workflowId: string;
      let createdAt: Date | undefined;
      let round = 1;
      let carried = rounds?.responses;
      if (rounds?.resumes) {
        // A retry with answers: the run its requestState names gets them; nothing starts.
        const resumes = rounds.resumes;
        if (resumes.tool !== tool.name) throw invalidParams('requestState belongs to a call of another tool');
        workflowId = resumes.workflowId;
        round = resumes.round + 1;
        const answers = boundedResponses(formAnswers(carried));
        carried = undefined;
        if (tool.inputSignal && Object.keys(answers).length > 0) {
          if (!(await backend.sendInput(workflowId, caller, tool.inputSignal, answers, tool.progressQuery)))
            throw invalidParams('requestState names a run that no longer exists');
        }
      } else {
        const keyArgument = tool.idempotencyKeyArgument;
        const key = keyArgument ? args[keyArgument] : undefined;
        const started = await backend.start(
          {
            tool,
            input: presentation.workflowInput(args, keyArgument),
            arguments: args,
            ...(tool.secretArguments ? { secretArguments: tool.secretArguments } : {}),
            ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
            summary: presentation.summary(tool.name, args, caller.principal),
          },
          { ...caller, origin: requestOrigin(server, ctx) },
        );
        workflowId = started.workflowId;
        createdAt = started.createdAt;
      }
      const waiting = waitOrAsk(
        backend,
        tool,
        workflowId,
        caller,
        ctx.mcpReq.signal,
        rounds,
        carried,
        stopping,
        budgetOf(call),
      );
      const token = progressToken(ctx);
      const outcome =
        token === undefined
          ? await waiting
          : await withProgress(
              ctx,
              token,
              { progress: 0, message: `Started ${tool.name}; waiting for the result` },
              async () => {
                const now = await view(workflowId, caller);
                return now?.state.status === 'running' ? presentation.progressReport(now) : undefined;
              },
              waiting,
            );
      if (outcome.kind === 'closed') return answer({ workflowId, state: outcome.state });
      if (outcome.kind === 'input' && rounds) {
        const state = await rounds.mint({ workflowId, tool: tool.name, round });
        return inputRequiredAnswer(outcome.requests, state);
      }
      // A task handle needs only the run's times (tasks/get reports progress); the start/poll
      // answer carries progress, so it also queries the workflow.
      if (takesTasks && createdAt) {
        // This call created the run and it was running when the budget ended: nothing to describe.
        const handle: ExecutionView = {
          workflowId,
          tool: tool.name,
          createdAt,
          lastUpdatedAt: createdAt,
          arguments: args,
          state: { status: 'running' },
        };
        return createTaskResult(handle, tool, timing);
      }
      const now = await backend.view(workflowId, caller, takesTasks ? {} : { progressQuery });
      if (!now) throw new Error(`the run ${workflowId} was started but cannot be found`);
      // It may have closed between the end of the budget and the describe: answer inline then.
      if (now.state.status !== 'running') return answer(now);
      return takesTasks ? createTaskResult(now, tool, timing) : answer(now);
    },
  };

  const result = zodTool({
    name: companions.result,
    title: `Check a ${presentation.noun}`,
    description: resultDescription(tool),
    args: workflowIdArgs(tool.name),
    outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async handler({ workflow_id }, { caller }) {
      const now = await view(workflow_id, caller);
      return now ? answer(now) : notFound(workflow_id);
    },
  });

  const cancel = zodTool({
    name: companions.cancel,
    title: `Cancel a ${presentation.noun}`,
    description: cancelDescription(tool),
    args: workflowIdArgs(tool.name),
    outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async handler({ workflow_id }, call) {
      if (!(await backend.cancel(workflow_id, call.caller, tool.idPrefix))) return notFound(workflow_id);
      // The run ends once the workflow notices (its activity in flight heartbeats): wait, bounded.
      return settle(workflow_id, call);
    },
  });

  const signal = tool.inputSignal;
  const respond =
    companions.respond && signal
      ? zodTool({
          name: companions.respond,
          title: `Answer a ${presentation.noun}'s input request`,
          description: respondDescription(tool),
          args: respondArgs(tool.name),
          outputSchema,
          annotations: {
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: false,
          },
          async handler({ workflow_id, key, action, content }, call) {
            const before = await view(workflow_id, call.caller);
            if (!before) return notFound(workflow_id);
            const outstanding =
              before.state.status === 'running' ? (before.state.progress?.inputRequests ?? {}) : {};
            const request = outstanding[key];
            if (!request) {
              const current = startPollJson(before, tool, timing.pollIntervalFor(before));
              return { ...toolResult({ ...current, note: notOutstanding(key) }, tool), isError: true };
            }
            if (action === 'accept') checkFormContent(request, content);
            const responses = { [key]: { action, ...(content ? { content } : {}) } };
            if (!(await backend.sendInput(workflow_id, call.caller, signal, responses)))
              return notFound(workflow_id);
            const after = await view(workflow_id, call.caller);
            if (!after) return notFound(workflow_id);
            if (after.state.status !== 'running' || hasInputRequests(after.state)) return answer(after);
            // Answered: the run goes on or wraps up now; answer with the result if it comes within the budget.
            return settle(workflow_id, call);
          },
        })
      : undefined;

  return [start, result, cancel, ...(respond ? [respond] : [])];
}
