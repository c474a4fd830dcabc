// Names the MCP wire fixes, shared by every gateway layer and the CLI, and the envelope of a
// JSON-RPC message as the HTTP layer reads it (http/body.ts). Constants and types only.

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

/** A JSON-RPC message as the gateway reads it ahead of the SDK. */
export interface Envelope {
  /** The request id, when it is a valid one (a string or a number). */
  id?: string | number;
  method?: string;
  params: Record<string, unknown>;
  /** tools/call: the tool's name. */
  tool?: string;
}
