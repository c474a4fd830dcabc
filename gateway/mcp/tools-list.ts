// tools/list: every tool the catalog makes, a start tool and its companions per catalog entry.
import type { Catalog } from './catalog.ts';
import { companionTools } from './companions.ts';
import type { ToolDefinition, ToolDeps } from './tool-definition.ts';
import { startTool } from './tools-call.ts';

/**
 * A tool as tools/list shows it, with each start tool's task support (`execution.taskSupport`: the
 * Tasks extension's for 2026-07-28 requests, the revision's own tasks for 2025-11-25 ones).
 */
function listedTool(tool: ToolDefinition) {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(tool.taskSupport ? { execution: { taskSupport: tool.taskSupport } } : {}),
  };
}

/** The catalog's tools, made once: by name for tools/call, listed for tools/list. */
export class CatalogTools {
  readonly byName: ReadonlyMap<string, ToolDefinition>;
  private readonly listed: { tools: ReturnType<typeof listedTool>[] };

  constructor(catalog: Catalog, deps: ToolDeps) {
    const definitions = catalog.tools.flatMap((tool) => [
      startTool(tool, deps),
      ...companionTools(tool, deps),
    ]);
    // The embedding host's quick tools (host-tools.ts), listed and called beside the catalog's.
    definitions.push(...(deps.hostTools ?? []));
    this.byName = new Map(definitions.map((tool) => [tool.name, tool]));
    this.listed = { tools: definitions.map(listedTool) };
  }

  /** tools/list's answer. */
  list() {
    return this.listed;
  }
}
