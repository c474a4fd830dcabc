// What a catalog entry written in code may use of the gateway: the one gateway module a catalog
// module (catalog/, or a module MCP_TOOLS_FILE or a `hooks:` field names) imports. It declares
// nothing of its own: the entry and hooks types, the run shapes hooks read, and the few helpers an
// entry needs, re-exported from where they live (the dependency rules keep catalog/ to this file).

export type { CatalogDefaults, CatalogEntry, CatalogTool, ToolHooks } from './mcp/catalog.ts';
export { catalogTool } from './mcp/catalog.ts';
export type { CatalogModuleTools } from './mcp/catalog-file.ts';
export type { Presentation, ProgressReport, ResultOutcome } from './mcp/presentation-hooks.ts';
export { type JsonSchema, jsonSchemaOf } from './mcp/schemas.ts';
export { failureMessage } from './mcp/start-poll.ts';
export type { ExecutionState, ExecutionView, RunningState } from './temporal/run-state.ts';
export { hasInputRequests } from './temporal/run-state.ts';
