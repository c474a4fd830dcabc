// The server's tools as tools/list describes them: what the CLI reads to type a tool's flags and to
// find the companions of its start/poll flow.
import type { Rpc } from './rpc.ts';

/** The parts of a JSON Schema the CLI reads. */
export interface ArgumentSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  properties?: Record<string, ArgumentSchema>;
  required?: string[];
}

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: ArgumentSchema;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

/** Every tool the server lists, following its pages. */
export async function listTools(rpc: Rpc): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await rpc('tools/list', cursor ? { cursor } : {});
    tools.push(...((page.tools as ListedTool[] | undefined) ?? []));
    const next = page.nextCursor;
    // A cursor seen before would page forever: stop there.
    cursor = typeof next === 'string' && next !== '' && !seen.has(next) ? next : undefined;
    if (cursor) seen.add(cursor);
  } while (cursor);
  return tools;
}

/** The listed tool named `name`, or an error naming the ones there are. */
export function toolNamed(tools: ListedTool[], name: string): ListedTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const names = tools.map((t) => t.name).join(', ') || 'none';
    throw new Error(`the server lists no tool "${name}" (its tools: ${names})`);
  }
  return tool;
}
