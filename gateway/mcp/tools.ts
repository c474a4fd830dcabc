// tools/list and tools/call. Tool definitions are built once (from the catalog); each request's
// server serves them for its caller. Bad arguments are a JSON-RPC
// invalid-params error naming the field, not a tool result.
import type {
  CallToolRequest,
  CallToolResult,
  Server,
  ServerContext,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { Caller } from '../temporal/backend.ts';
import { observeToolCall } from './call-observer.ts';
import { invalidParams, toProtocolError } from './json-rpc-errors.ts';
import type { JsonSchema } from './json-schema.ts';
import type { CreateTaskResult } from './task-mapping.ts';

/** What a tool handler may answer: a CallToolResult, or a task handle (resultType "task"). */
export type ToolAnswer = CallToolResult | CreateTaskResult;

/** One call: the request's server (its client capabilities), context and caller. */
export interface ToolCall {
  server: Server;
  ctx: ServerContext;
  caller: Caller;
}

export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** The checked arguments (defaults filled in); throws an Error naming the first bad field. */
  parse(raw: unknown): Record<string, unknown>;
  handler(args: Record<string, unknown>, call: ToolCall): Promise<ToolAnswer>;
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
  const { $schema: _ignored, ...schema } = z.toJSONSchema(args, { io: 'input' }) as JsonSchema;
  return {
    ...rest,
    inputSchema: { type: 'object', ...schema },
    parse(raw) {
      const parsed = args.safeParse(raw);
      if (!parsed.success) throw new Error(describeIssues(parsed.error));
      return parsed.data as Record<string, unknown>;
    },
    handler: (parsed, call) => handler(parsed as z.infer<S>, call),
  };
}

export function listedTool(tool: ToolDefinition) {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

/** The tools of a catalog, listed once: the same for every request. */
export class ToolSet {
  readonly byName: Map<string, ToolDefinition>;
  readonly listed: ReturnType<typeof listedTool>[];

  constructor(readonly tools: ToolDefinition[]) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
    this.listed = tools.map(listedTool);
  }
}

export function registerTools(server: Server, toolSet: ToolSet, caller: Caller): void {
  const { byName } = toolSet;
  server.setRequestHandler('tools/list', () => ({ tools: toolSet.listed }) as never);
  const callTool = async (request: CallToolRequest, ctx: ServerContext) => {
    const { name, arguments: raw } = request.params;
    const tool = byName.get(name);
    if (!tool) throw invalidParams(`Unknown tool: ${name}`);
    let args: Record<string, unknown>;
    try {
      args = tool.parse(raw ?? {});
    } catch (err) {
      throw invalidParams(`Invalid arguments for tool ${name}: ${(err as Error).message}`);
    }
    let answer: ToolAnswer;
    try {
      answer = await tool.handler(args, { server, ctx, caller });
    } catch (err) {
      throw toProtocolError(err);
    }
    if ('resultType' in answer && answer.resultType === 'task') return answer as never;
    return server.projectCallToolResult(answer as CallToolResult, undefined) as never;
  };
  server.setRequestHandler('tools/call', (request, ctx) =>
    observeToolCall(byName.has(request.params.name) ? request.params.name : 'unknown', () =>
      callTool(request, ctx),
    ),
  );
}
