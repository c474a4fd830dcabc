// A fresh MCP server for one request: the mining tools and the Tasks methods, bound to the caller.
import { Server } from '@modelcontextprotocol/server';
import type { Caller, MiningBackend } from '../temporal/mining-backend.ts';
import type { ApprovalPolicy } from './approval-policy.ts';
import { TASKS_EXTENSION } from './capabilities.ts';
import { miningTools } from './mining-tools.ts';
import type { TaskTiming } from './task-mapping.ts';
import { registerTaskMethods } from './task-methods.ts';
import { registerToolCatalog } from './tools.ts';

export const SERVER_INFO = { name: 'temporal-mcp-gateway', version: '0.1.0' } as const;

export const INSTRUCTIONS =
  'Long-running proof-of-work mining backed by a durable workflow engine. start_mining waits a while; ' +
  'if the work is not done it returns a workflow_id: poll get_mining_result with that exact id, ' +
  'waiting poll_after_seconds between polls, until the status is no longer "running".';

export interface McpServerDeps {
  backend: MiningBackend;
  waitBudgetMs: number;
  timing: TaskTiming;
  approval?: ApprovalPolicy;
}

export function createMcpServer(deps: McpServerDeps, caller: Caller): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
    instructions: INSTRUCTIONS,
  });
  registerToolCatalog(server, miningTools(server, deps, caller));
  registerTaskMethods(server, deps, caller);
  return server;
}
