// A fresh MCP server for one request: the catalog's tools and the Tasks methods, bound to the caller.
import { Server } from '@modelcontextprotocol/server';
import type { Caller, TemporalBackend } from '../temporal/backend.ts';
import { TASKS_EXTENSION } from './capabilities.ts';
import type { Catalog } from './catalog.ts';
import { cancelTool, respondTool, resultTool } from './companion-tools.ts';
import { startTool } from './start-tool.ts';
import type { TaskTiming } from './task-mapping.ts';
import { registerTaskMethods } from './task-methods.ts';
import { ToolRuns } from './tool-runs.ts';
import { registerTools, type ToolDefinition, ToolSet } from './tools.ts';

export const SERVER_INFO = { name: 'temporal-mcp-gateway', version: '0.1.0' } as const;

export const INSTRUCTIONS =
  'Long-running tools backed by a durable workflow engine. A start tool waits a while; if the work is not ' +
  'done it returns a workflow_id: poll the result tool its answer names with that exact id, waiting ' +
  'poll_after_seconds between polls, until the status is no longer "running".';

export interface McpServerDeps {
  backend: TemporalBackend;
  catalog: Catalog;
  timing: TaskTiming;
}

/** A catalog tool as MCP tools: its start and its start/poll companions. */
function durableTools(runs: ToolRuns): ToolDefinition[] {
  const { respond } = runs.tool.companions;
  const signal = runs.tool.inputSignal;
  return [
    startTool(runs),
    resultTool(runs),
    cancelTool(runs),
    ...(respond && signal ? [respondTool(runs, respond, signal)] : []),
  ];
}

/** The MCP side of a gateway: its tools built once, and a server per request. */
export class McpServers {
  readonly toolSet: ToolSet;

  constructor(private readonly deps: McpServerDeps) {
    this.toolSet = new ToolSet(deps.catalog.tools.flatMap((tool) => durableTools(new ToolRuns(tool, deps))));
  }

  /**
   * A server for one request. Only 2026-07-28 (`modern`) requests can receive tasks, so only they
   * see the Tasks extension advertised; a 2025-era client always gets start/poll handles.
   */
  create(caller: Caller, era: 'legacy' | 'modern'): Server {
    const extensions = era === 'modern' ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {}, ...extensions },
      instructions: INSTRUCTIONS,
    });
    registerTools(server, this.toolSet, caller);
    registerTaskMethods(server, this.deps, caller);
    return server;
  }
}
