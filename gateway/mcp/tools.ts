// tools/list and tools/call over a small catalog of tools with zod argument schemas. Bad
// arguments are a JSON-RPC invalid-params error naming the field, not a tool result.
import type {
  CallToolRequest,
  CallToolResult,
  Server,
  ServerContext,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { observeToolCall } from './call-observer.ts';
import { invalidParams, toProtocolError } from './json-rpc-errors.ts';
import type { CreateTaskResult } from './task-mapping.ts';

/** What a tool handler may answer: a CallToolResult, or a task handle (resultType "task"). */
export type ToolAnswer = CallToolResult | CreateTaskResult;

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  args: S;
  annotations: ToolAnnotations;
  handler: (args: z.infer<S>, ctx: ServerContext) => Promise<ToolAnswer>;
}

export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** "difficulty: Too big: expected int to be <=40" — the first problem, naming the field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

export function listedTool(tool: ToolDefinition) {
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(tool.args, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: { type: 'object', ...inputSchema },
    annotations: tool.annotations,
  };
}

export function registerToolCatalog(server: Server, tools: ToolDefinition[]): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // Listed on demand: converting the schemas costs about 0.4 ms, and most requests are not tools/list.
  server.setRequestHandler('tools/list', () => ({ tools: tools.map(listedTool) }) as never);
  const callTool = async (request: CallToolRequest, ctx: ServerContext) => {
    const { name, arguments: raw } = request.params;
    const tool = byName.get(name);
    if (!tool) throw invalidParams(`Unknown tool: ${name}`);
    const parsed = tool.args.safeParse(raw ?? {});
    if (!parsed.success) {
      throw invalidParams(`Invalid arguments for tool ${name}: ${describeIssues(parsed.error)}`);
    }
    let answer: ToolAnswer;
    try {
      answer = await tool.handler(parsed.data, ctx);
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
