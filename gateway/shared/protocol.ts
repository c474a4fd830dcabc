// Names the MCP wire fixes, shared by every gateway layer and the CLI. Constants only.

/** The Tasks extension's identifier, as clients declare it in their per-request capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Keys of a 2026-07-28 request's `_meta` envelope. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;
