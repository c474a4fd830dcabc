// tools/list: every tool the catalog makes, a start tool and its companions per catalog entry, as
// the two protocol eras list them.
import type { Catalog } from './catalog.ts';
import { companionTools } from './companions.ts';
import type { ToolDefinition, ToolDeps } from './tool-definition.ts';
import { startTool } from './tools-call.ts';

type Era = 'legacy' | 'modern';

/**
 * A tool as tools/list shows it. 2026-07-28 requests also see each start tool's task support
 * (`execution.taskSupport`, as the Tasks extension declares it); a 2025-era client never gets
 * tasks, so it is not told of any.
 */
function listedTool(tool: ToolDefinition, era: Era) {
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

/** The catalog's tools, made once: by name for tools/call, listed per era for tools/list. */
export class CatalogTools {
  readonly byName: ReadonlyMap<string, ToolDefinition>;
  private readonly listed: Record<Era, { tools: ReturnType<typeof listedTool>[] }>;

  constructor(catalog: Catalog, deps: ToolDeps) {
    const definitions = catalog.tools.flatMap((tool) => [
      startTool(tool, deps),
      ...companionTools(tool, deps),
    ]);
    this.byName = new Map(definitions.map((tool) => [tool.name, tool]));
    this.listed = {
      legacy: { tools: definitions.map((tool) => listedTool(tool, 'legacy')) },
      modern: { tools: definitions.map((tool) => listedTool(tool, 'modern')) },
    };
  }

  /** tools/list's answer for a request of `era`. */
  list(era: Era) {
    return this.listed[era];
  }
}
