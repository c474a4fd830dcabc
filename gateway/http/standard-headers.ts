// The 2026-07-28 standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) a client left out,
// filled in from the body before the SDK checks them. Some clients in wide use (the Python SDK on
// tasks/*) send the body right and omit a header; the body says everything the header would.
// Only missing headers are filled: a header that disagrees with the body is still refused. Pure.
import type { IncomingHttpHeaders } from 'node:http';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** Which body field the Mcp-Name header mirrors, by method (as the SDK checks it). */
const NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A header value must be visible ASCII; anything else is left for the SDK to judge. */
const HEADER_SAFE = /^[\x20-\x7e]{1,1000}$/;

/** The standard headers to add to a modern request that omitted them; empty when none are missing. */
export function missingStandardHeaders(headers: IncomingHttpHeaders, body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const { method, params } = body as { method?: unknown; params?: Record<string, unknown> };
  if (typeof method !== 'string' || !params || typeof params !== 'object') return {};
  const meta = params._meta as Record<string, unknown> | undefined;
  const version = meta?.[PROTOCOL_VERSION_KEY];
  // Only requests that carry the 2026-07-28 envelope: a 2025-era request has none of these headers.
  if (typeof version !== 'string') return {};
  const added: Record<string, string> = {};
  if (headers['mcp-protocol-version'] === undefined && HEADER_SAFE.test(version)) {
    added['mcp-protocol-version'] = version;
  }
  if (headers['mcp-method'] === undefined && HEADER_SAFE.test(method)) added['mcp-method'] = method;
  const field = NAME_SOURCE[method];
  const name = field ? params[field] : undefined;
  if (headers['mcp-name'] === undefined && typeof name === 'string' && HEADER_SAFE.test(name)) {
    added['mcp-name'] = name;
  }
  return added;
}
