// What a catalog entry written in code may use of the gateway: the one gateway module a catalog
// module (catalog/, or a module MCP_TOOLS_FILE or a `hooks:` field names) imports. It declares
// nothing of its own: the entry and hooks types, the run shapes hooks read, and the few helpers an
// entry needs, re-exported from where they live (the dependency rules keep catalog/ to this file).

export type { Presentation, ProgressReport, ResultOutcome } from './mcp/answers.ts';
export { failureMessage, hasInputRequests } from './mcp/answers.ts';
export type {
  CatalogDefaults,
  CatalogEntry,
  CatalogTool,
  JsonSchema,
  ToolHooks,
} from './mcp/catalog.ts';
export { catalogTool, jsonSchemaOf } from './mcp/catalog.ts';
export type { CatalogModuleTools } from './mcp/catalog-file.ts';
export type { ExecutionState, ExecutionView, RunningState } from './temporal/runs.ts';
