// What an MCP tool is to the gateway: its listing (name, schemas, annotations, task support), how its
// arguments are checked, and its handler, given the call (the request's server, context and caller).
// Every catalog tool becomes a start tool (tools-call.ts) and its companions (companions.ts).
import type { CallToolResult, Server, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';
import type * as z from 'zod/v4';
import type { Caller, RequestOrigin } from '../shared/caller.ts';
import type { RunParts } from '../temporal/backend.ts';
import type { ParsedTaskIds } from '../temporal/task-ids.ts';
import type { ClientCapabilityName, TaskSupport } from './catalog.ts';
import type { InputRequiredAnswer, InputRounds } from './input-rounds.ts';
import type { legacyCreateTaskResult } from './legacy-task-shapes.ts';
import type { TaskTiming } from './poll-pacing.ts';
import { type JsonSchema, jsonSchemaOf } from './schemas.ts';
import type { CreateTaskResult } from './task-shapes.ts';

/**
 * What a tool handler may answer: a CallToolResult, a task handle (resultType "task"), or a
 * request for input (resultType "input_required").
 */
export type ToolAnswer =
  | CallToolResult
  | CreateTaskResult
  | InputRequiredAnswer
  | ReturnType<typeof legacyCreateTaskResult>;

/** One call: the request's server (its client capabilities), context and caller. */
export interface ToolCall {
  server: Server;
  ctx: ServerContext;
  caller: Caller;
  /** Whether this request may receive a task (it declared the Tasks extension, or asked with `params.task`). */
  takesTasks: boolean;
  /** A 2025-11-25 request: its task is the revision's own (SEP-1686), not the extension's. */
  legacyTasks?: boolean;
  /** Multi-round-trip input (2026-07-28 requests only); absent: input goes through tasks or companions. */
  rounds?: InputRounds;
  /** Which client sent the call: its wait budget, and what a run it starts names in its memo. */
  origin: RequestOrigin;
  /** A task id of the arguments (a companion's workflow_id) as the HTTP layer parsed it (methods.ts). */
  named: ParsedTaskIds;
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

/** What the tools of the catalog work with, handed over once when they are made. */
export interface ToolDeps extends Pick<RunParts, 'starts' | 'waits' | 'views' | 'actions' | 'recentRuns'> {
  timing: TaskTiming;
  /** Aborts when the gateway shuts down: a waiting call stops waiting and answers its handle. */
  stopping?: AbortSignal;
  /** Wait budgets per MCP client (lower-cased clientInfo.name); each tool's budget caps them. */
  clientWaitBudgets?: ReadonlyMap<string, number>;
  /** The embedding host's quick tools (host-tools.ts), served beside the catalog's. */
  hostTools?: readonly ToolDefinition[];
}

/** "difficulty: Too big: expected int to be <=40" — every problem, naming the field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/** A tool whose arguments are a zod schema (the gateway's own companions). */
export function zodTool<S extends z.ZodObject>(
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
