// tools/call: the tool by name, the capabilities it needs, its arguments checked, its handler. A
// catalog tool's start is here: it starts the run (or, on a retry with a verified requestState,
// answers the run it names), waits at most the budget (with progress when asked), then answers: the
// result inline; input-required (2026-07-28, the run asks for input); a task for a request that
// declared the Tasks extension; else the start/poll "running" JSON the companions continue.
import type { CallToolResult, RequestStateCodec, Server, ServerContext } from '@modelcontextprotocol/server';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { RequestOrigin } from '../shared/caller.ts';
import { META } from '../shared/protocol.ts';
import { withoutSecrets } from '../shared/secret-arguments.ts';
import type { ExecutionView, RunRef } from '../temporal/run-state.ts';
import { type TaskName, taskIdText } from '../temporal/task-ids.ts';
import { holdingWait, waitForRun } from './call-wait.ts';
import type { CatalogTool } from './catalog.ts';
import { startDescription } from './descriptions.ts';
import { invalidParams, missingClientCapabilities, missingTasksCapability } from './errors.ts';
import { inputRequiredAnswer, inputRounds, type RoundState, resumeRound } from './input-rounds.ts';
import { legacyCreateTaskResult } from './legacy-task-shapes.ts';
import { declaresTasksExtension, type MethodCall } from './method-context.ts';
import { describeSchemaError } from './schemas.ts';
import { startPollAnswer, startPollOutputSchema } from './start-poll.ts';
import { createTaskResult } from './task-shapes.ts';
import type { ToolAnswer, ToolCall, ToolDefinition, ToolDeps } from './tool-definition.ts';

/** tools/call's params, past the SDK's own check of them. */
export type CallParams = { name: string; arguments?: Record<string, unknown>; task?: unknown };

/** What tools/call takes: the tools the catalog makes (by name), and the requestState codec of input rounds. */
export interface CallParts {
  tools: ReadonlyMap<string, ToolDefinition>;
  requestStates: RequestStateCodec<RoundState>;
}

/** tools/call, both revisions: the tool by name, with what the request's revision lets it answer. */
export function callTool({ tools, requestStates }: CallParts) {
  return async (call: MethodCall<CallParams>) => {
    const { server, ctx, caller, era, params } = call;
    const { name, arguments: raw } = params;
    const tool = tools.get(name);
    if (!tool) throw invalidParams(`Unknown tool: ${name}`);
    // A 2025-11-25 call asks for the revision's own task with `params.task`; a 2026-07-28 one
    // takes tasks when it declares the Tasks extension.
    const legacyTasks = era === 'legacy';
    const takesTasks = legacyTasks
      ? params.task !== undefined
      : declaresTasksExtension(server.getClientCapabilities());
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
    const rounds = era === 'modern' ? inputRounds(server, ctx, requestStates) : undefined;
    const answer = await tool.handler(args, {
      ...{ server, ctx, caller, takesTasks, origin: requestOrigin(server, ctx) },
      named: (taskId) => call.parsed(taskId) ?? taskId,
      ...(legacyTasks ? { legacyTasks } : {}),
      ...(rounds ? { rounds } : {}),
    });
    if ('task' in answer) return answer;
    if ('resultType' in answer && (answer.resultType === 'task' || answer.resultType === 'input_required'))
      return answer;
    return server.projectCallToolResult(answer as CallToolResult, undefined);
  };
}

/** `value` checked (a copy, with defaults filled in); an Error naming the first bad field if not. */
export function validated<T>(validate: ValidateFunction, value: unknown): T {
  const copy = structuredClone(value);
  if (validate(copy)) return copy as T;
  const first = validate.errors?.[0];
  throw new Error(first ? describeSchemaError(first) : 'does not match the schema');
}

/** Caller-supplied text, trimmed and cut to 200 characters; undefined when empty. */
function text(value: unknown): string | undefined {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  return trimmed === '' ? undefined : trimmed.slice(0, 200);
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

// ---- a catalog tool's start ---------------------------------------------------------------------

/**
 * The run a call goes on with: started now (`createdAt`) or named by its requestState; `carried`:
 * answers it brought; `answered`: the keys a retry answered.
 */
interface CallRun {
  task: TaskName;
  /** The run in Temporal. */
  run: RunRef;
  createdAt?: Date;
  round: number;
  carried?: Record<string, unknown>;
  answered?: string[];
}

/** A catalog tool's start tool. */
export function startTool(tool: CatalogTool, deps: ToolDeps): ToolDefinition {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: startDescription(tool),
    inputSchema: tool.inputSchema,
    // A tool whose results are MCP tool results lists only the schema its entry gives them.
    ...(tool.resultShape === 'toolResult'
      ? tool.outputSchema
        ? { outputSchema: tool.outputSchema }
        : {}
      : { outputSchema: startPollOutputSchema(tool.outputSchema ?? {}) }),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    taskSupport: tool.taskSupport,
    ...(tool.requiredClientCapabilities
      ? { requiredClientCapabilities: tool.requiredClientCapabilities }
      : {}),
    parse: (raw) => validated<Record<string, unknown>>(tool.validateArguments, raw),
    handler: (args, call) => holdingWait(tool, deps, call, () => start(tool, deps, args, call)),
  };
}

async function start(tool: CatalogTool, deps: ToolDeps, args: Record<string, unknown>, call: ToolCall) {
  const { caller, rounds } = call;
  const run: CallRun = rounds?.resumes
    ? await resumeRound(tool, deps, { caller, rounds })
    : await begin(tool, deps, args, { ...call, caller: { ...caller, origin: call.origin } });
  const outcome = await waitForRun(tool, deps, call, {
    task: run.task,
    run: run.run,
    reportsProgress: true,
    ...(run.carried ? { carried: run.carried } : {}),
    ...(run.answered ? { answered: run.answered } : {}),
  });
  if (outcome.kind === 'closed') {
    const closed = { taskId: taskIdText(run.task), run: run.run, state: outcome.state };
    // A 2025-11-25 task request gets its task whatever: its client follows the task to the result.
    if (call.legacyTasks && call.takesTasks) return stillRunning(tool, deps, call, { args, run, closed });
    return startPollAnswer(closed, tool, deps.timing);
  }
  if (outcome.kind === 'input' && rounds) {
    const keys = Object.keys(outcome.requests);
    const state = await rounds.mint({
      workflowId: taskIdText(run.task),
      tool: tool.name,
      round: run.round,
      keys,
    });
    return inputRequiredAnswer(outcome.requests, state);
  }
  return stillRunning(tool, deps, call, { args, run });
}

/** A first call: the run starts (or, with an idempotency key, the run the key names is found), for `call.caller` with its origin. */
async function begin(
  tool: CatalogTool,
  deps: ToolDeps,
  args: Record<string, unknown>,
  call: ToolCall,
): Promise<CallRun> {
  const { presentation } = tool;
  const { caller } = call;
  const keyArgument = tool.idempotencyKeyArgument;
  const key = keyArgument ? args[keyArgument] : undefined;
  const started = await deps.starts.run(
    {
      tool,
      input: presentation.workflowInput(args, keyArgument),
      arguments: args,
      ...(tool.secrets ? { secrets: tool.secrets } : {}),
      ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
      summary: presentation.summary(tool.name, withoutSecrets(args, tool.secrets), caller.principal),
    },
    caller,
  );
  return {
    task: started.task,
    run: started.run,
    ...(started.createdAt ? { createdAt: started.createdAt } : {}),
    round: 1,
    ...(call.rounds?.responses ? { carried: call.rounds.responses } : {}),
  };
}

/**
 * The run outlasted the budget: a task for a request that takes tasks (it needs only the run's
 * times when this call created it: tasks/get reports progress), else the start/poll answer, which
 * carries progress and so describes the run and queries it.
 */
async function stillRunning(
  tool: CatalogTool,
  deps: ToolDeps,
  call: ToolCall,
  {
    args,
    run,
    closed,
  }: { args: Record<string, unknown>; run: CallRun; closed?: Pick<ExecutionView, 'state'> },
): Promise<ToolAnswer> {
  const { task, createdAt } = run;
  const takesTasks = call.takesTasks && tool.taskSupport !== 'forbidden';
  const taskAnswer = call.legacyTasks ? legacyCreateTaskResult : createTaskResult;
  const at = createdAt ?? new Date();
  const handle: ExecutionView = {
    ...{
      taskId: taskIdText(task),
      run: run.run,
      tool: tool.name,
      createdAt: at,
      lastUpdatedAt: closed ? new Date() : at,
      // What the hooks read of a run: never a secret, as from the memo.
      arguments: withoutSecrets(args, tool.secrets),
    },
    state: closed?.state ?? { status: 'running' },
  };
  if (takesTasks && (createdAt || closed)) return taskAnswer(handle, tool, deps.timing);
  // A describe Temporal does not answer still answers the run's handle: it was started.
  const now =
    (await deps.views.read(task, call.caller, takesTasks ? {} : tool.progress).catch(() => undefined)) ??
    handle;
  // It may have closed between the end of the budget and the describe: answer inline then.
  if (now.state.status !== 'running') return startPollAnswer(now, tool, deps.timing);
  return takesTasks ? taskAnswer(now, tool, deps.timing) : startPollAnswer(now, tool, deps.timing);
}
