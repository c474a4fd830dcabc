// Names the MCP wire fixes, shared by every gateway layer and the CLI. Constants only.

/** The Tasks extension's identifier, as clients declare it in their per-request capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The per-request revision this gateway serves (beside the 2025 ones, through the SDK's fallback). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Keys of a 2026-07-28 request's `_meta` envelope. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;
