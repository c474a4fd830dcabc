// A fresh MCP server for one request: the catalog's tools and the Tasks methods, bound to the caller.
import { Server } from '@modelcontextprotocol/server';
import type { Caller, TemporalBackend } from '../temporal/backend.ts';
import { TASKS_EXTENSION } from './capabilities.ts';
import type { Catalog } from './catalog.ts';
import { durableTools } from './durable-tools.ts';
import type { TaskTiming } from './task-mapping.ts';
import { registerTaskMethods } from './task-methods.ts';
import { registerTools, ToolSet } from './tools.ts';

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

/** The MCP side of a gateway: its tools built once, and a server per request. */
export class McpServers {
  readonly toolSet: ToolSet;

  constructor(private readonly deps: McpServerDeps) {
    this.toolSet = new ToolSet(deps.catalog.tools.flatMap((tool) => durableTools(tool, deps)));
  }

  create(caller: Caller): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: INSTRUCTIONS,
    });
    registerTools(server, this.toolSet, caller);
    registerTaskMethods(server, this.deps, caller);
    return server;
  }
}
