// Quick tools of the application that embeds the gateway: plain MCP tools with the host's own
// handlers, served on the same endpoint as the catalog's durable tools. A quick tool answers inline
// from its handler: it never starts a workflow and never becomes a task (its listing says
// `taskSupport: forbidden`). Its arguments are checked against a zod object schema or a JSON Schema
// before its handler runs, like a catalog tool's; a bad one is -32602 naming the field. Its `scopes`
// are checked as a catalog tool's are (rights.ts), before its handler runs, which learns the caller's.
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { SCOPE_TOKEN } from './catalog.ts';
import { compileSchema, type JsonSchema } from './schemas.ts';
import type { ToolDefinition } from './tool-definition.ts';
import { describeIssues } from './tool-definition.ts';
import { validated } from './tools-call.ts';

/** What a quick tool's handler learns of its call besides its arguments. */
export interface QuickToolContext {
  /** Who called: the authenticated principal, or "anonymous" when nobody authenticates. */
  principal: string;
  /**
   * The scopes the caller's identity holds (its token's, or what the host's `authenticate` named);
   * absent: every scope (nobody signs in, a static token given none, an identity without `scopes`).
   */
  scopes?: readonly string[];
  /** Aborts when the client cancels the call or goes away. */
  signal: AbortSignal;
}

/** A tool of the host application, answered by its own handler, inline. */
export interface QuickTool {
  /** The MCP tool name: unique among the quick tools and the catalog's tools and companions. */
  name: string;
  title?: string;
  description: string;
  /** The arguments: a zod object schema, or a JSON Schema (2020-12) of `type: "object"`. */
  inputSchema: z.ZodObject | JsonSchema;
  /** The JSON Schema of the result's structuredContent, if it has one. */
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /**
   * OAuth scopes a caller needs to call it, as a catalog entry's `scopes`: a caller lacking one is
   * refused with 403 `insufficient_scope` naming them all, and the handler does not run.
   */
  scopes?: readonly string[];
  /** Answers the call; what it throws is an internal error to the client. */
  handler(args: Record<string, unknown>, context: QuickToolContext): CallToolResult | Promise<CallToolResult>;
}

const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

function isZodSchema(schema: QuickTool['inputSchema']): schema is z.ZodObject {
  return typeof schema === 'object' && schema !== null && '_zod' in schema;
}

/** The listing schema and the argument check of one quick tool. */
function argumentsOf(tool: QuickTool): Pick<ToolDefinition, 'inputSchema' | 'parse'> {
  const schema = tool.inputSchema;
  if (isZodSchema(schema)) {
    const inputSchema = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
    return {
      inputSchema,
      parse: (raw) => {
        const parsed = schema.safeParse(raw);
        if (!parsed.success) throw new Error(describeIssues(parsed.error));
        return parsed.data as Record<string, unknown>;
      },
    };
  }
  if (schema?.type !== 'object')
    throw new Error(`quick tool ${tool.name}: inputSchema must be of type "object"`);
  let validate: ReturnType<typeof compileSchema>;
  try {
    validate = compileSchema(schema);
  } catch (err) {
    throw new Error(`quick tool ${tool.name}: inputSchema: ${(err as Error).message}`);
  }
  return { inputSchema: schema, parse: (raw) => validated(validate, raw) };
}

/** A quick tool's scopes checked as a catalog entry's are: scope tokens, at least one, each once. */
function checkScopes(tool: QuickTool): void {
  const { scopes } = tool;
  if (scopes === undefined) return;
  if (!Array.isArray(scopes) || scopes.length === 0)
    throw new Error(`quick tool ${tool.name}: scopes must be a non-empty array (leave it out for none)`);
  for (const scope of scopes)
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope))
      throw new Error(`quick tool ${tool.name}: scopes: "${String(scope)}" is not a valid OAuth scope`);
  if (new Set(scopes).size !== scopes.length)
    throw new Error(`quick tool ${tool.name}: scopes: a scope named twice`);
}

/** The scopes a call of each quick tool needs, by name (the tools that declare some). */
export function quickToolScopes(tools: readonly QuickTool[]): Map<string, readonly string[]> {
  return new Map(tools.flatMap((tool) => (tool.scopes ? [[tool.name, [...tool.scopes]] as const] : [])));
}

/**
 * The quick tools as tools/list and tools/call take them. Throws, naming the tool, on a bad name,
 * a name given twice, a name the catalog already serves (`taken`: its tools and companions), a bad
 * schema or bad scopes: the host learns it when it registers the tools, not when a client calls one.
 */
export function hostToolDefinitions(
  tools: readonly QuickTool[],
  taken: ReadonlySet<string>,
): ToolDefinition[] {
  const seen = new Set<string>();
  return tools.map((tool) => {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`quick tool "${tool.name}": not a valid tool name`);
    if (taken.has(tool.name))
      throw new Error(`quick tool ${tool.name}: the catalog already serves a tool of that name`);
    if (seen.has(tool.name)) throw new Error(`quick tool ${tool.name}: registered twice`);
    seen.add(tool.name);
    checkScopes(tool);
    return {
      name: tool.name,
      ...(tool.title ? { title: tool.title } : {}),
      description: tool.description,
      ...argumentsOf(tool),
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
      taskSupport: 'forbidden',
      handler: async (args, { caller, ctx }) =>
        tool.handler(args, {
          principal: caller.principal,
          ...(caller.scopes ? { scopes: [...caller.scopes] } : {}),
          signal: ctx.mcpReq.signal,
        }),
    };
  });
}
