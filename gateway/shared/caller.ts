// Who is asking: the principal the HTTP layer admitted a request as, what its token may do, and
// the MCP client it came through. Every layer scopes its work to it; no layer finds it out itself.

/** Who is calling: every task operation is scoped to the principal that started the task. */
export interface Caller {
  principal: string;
  /** The MCP client and protocol revision of the request, when known (shown in the Web UI). */
  origin?: RequestOrigin;
  /** The OAuth scopes the request's token holds; absent: every scope (a static token). */
  scopes?: readonly string[];
}

/** Which MCP client sent the request that started a run, shown in the Web UI. */
export interface RequestOrigin {
  /** The client's `clientInfo.name`, when the request carried it. */
  clientName?: string;
  clientVersion?: string;
  /** The protocol revision the request was sent under, when known. */
  protocolVersion?: string;
  /** The HTTP User-Agent, a hint for 2025-era clients that do not name themselves per request. */
  userAgent?: string;
}
