// Which MCP client sent a request, and under which protocol revision: shown on the run in the
// Temporal Web UI. A 2026-07-28 request names its client in its per-request `_meta` envelope; a
// 2025-era request over the stateless endpoint carries only the MCP-Protocol-Version header (its
// client named itself in `initialize`, an earlier request the gateway keeps nothing of).
import type { Server, ServerContext } from '@modelcontextprotocol/server';

export interface RequestOrigin {
  /** The client's `clientInfo.name`, when the request carried it. */
  clientName?: string;
  clientVersion?: string;
  /** The protocol revision the request was sent under, when known. */
  protocolVersion?: string;
  /** The HTTP User-Agent, a hint for 2025-era clients that do not name themselves per request. */
  userAgent?: string;
}

const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const MAX_LENGTH = 200;

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_LENGTH);
}

/** The origin of the request a handler is serving (pure: reads the envelope, server state, headers). */
export function requestOrigin(
  server: Pick<Server, 'getClientVersion' | 'getNegotiatedProtocolVersion'>,
  ctx: Pick<ServerContext, 'mcpReq' | 'http'>,
): RequestOrigin {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const info = (envelope[CLIENT_INFO] ?? server.getClientVersion()) as
    | { name?: unknown; version?: unknown }
    | undefined;
  const headers = ctx.http?.req?.headers;
  const origin: RequestOrigin = {
    clientName: text(info?.name),
    clientVersion: text(info?.version),
    protocolVersion:
      text(envelope[PROTOCOL_VERSION]) ??
      text(headers?.get('mcp-protocol-version')) ??
      text(server.getNegotiatedProtocolVersion()),
    userAgent: text(headers?.get('user-agent')),
  };
  return Object.fromEntries(Object.entries(origin).filter(([, v]) => v !== undefined)) as RequestOrigin;
}
