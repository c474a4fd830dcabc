// A minimal MCP 2026-07-28 requester over Streamable HTTP: one POST per request, framed with the
// per-request `_meta` envelope and the Mcp-Method / Mcp-Name headers. Answers JSON or SSE.

export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface RpcOptions {
  url: string;
  token?: string;
  /** Declare the Tasks extension on every request (default true). */
  tasks?: boolean;
  clientInfo?: { name: string; version: string };
  fetch?: typeof fetch;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export type Rpc = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** The header `Mcp-Name` names the tool of a tools/call and the task of a tasks/* request. */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'tools/call') return params.name as string;
  if (method.startsWith('tasks/')) return params.taskId as string;
  return undefined;
}

export function createRpc(options: RpcOptions): Rpc {
  const doFetch = options.fetch ?? fetch;
  const clientInfo = options.clientInfo ?? { name: 'mcp-mining-cli', version: '0.1.0' };
  const capabilities = options.tasks === false ? {} : { extensions: { [TASKS_EXTENSION]: {} } };
  let nextId = 1;
  return async (method, params) => {
    const body = {
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
          'io.modelcontextprotocol/clientInfo': clientInfo,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': method,
    };
    const name = nameOf(method, params);
    if (name) headers['mcp-name'] = name;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await doFetch(options.url, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await response.text();
    const message = parseMessage(text, response.headers.get('content-type') ?? '');
    if (!message)
      throw new RpcError(
        -32603,
        `HTTP ${response.status}: ${text.slice(0, 200)}`,
        undefined,
        response.status,
      );
    if (message.error) {
      const { code, message: msg, data } = message.error;
      throw new RpcError(code, msg, data, response.status);
    }
    return message.result ?? {};
  };
}

interface JsonRpcMessage {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

function parseMessage(text: string, contentType: string): JsonRpcMessage | undefined {
  try {
    if (!contentType.includes('text/event-stream')) return JSON.parse(text) as JsonRpcMessage;
    // Take the last data event that is a response (notifications may come first).
    let found: JsonRpcMessage | undefined;
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const event = JSON.parse(line.slice(5).trim()) as JsonRpcMessage & { id?: unknown };
      if (event.id !== undefined && (event.result || event.error)) found = event;
    }
    return found;
  } catch {
    return undefined;
  }
}
