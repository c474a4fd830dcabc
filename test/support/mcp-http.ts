// Plain HTTP MCP requests framed as protocol revision 2026-07-28 (headers plus the per-request
// _meta envelope), for what SDK clients cannot send: task results and the tasks/* methods.
import type { JsonRpcResponse } from '@modelcontextprotocol/ext-tasks/client';
import { MODERN_PROTOCOL_VERSION, TASKS_EXTENSION } from '../../gateway/shared/protocol.ts';

export { TASKS_EXTENSION };

export const PROTOCOL_VERSION = MODERN_PROTOCOL_VERSION;
export const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
export const WITHOUT_TASKS = {};

export interface Framing {
  clientInfo: { name: string; version: string };
  clientCapabilities: Record<string, unknown>;
}

export const TASKS_CLIENT: Framing = {
  clientInfo: { name: 'gateway-test-tasks', version: '1.0.0' },
  clientCapabilities: WITH_TASKS,
};

export const PLAIN_CLIENT: Framing = {
  clientInfo: { name: 'gateway-test-plain', version: '1.0.0' },
  clientCapabilities: WITHOUT_TASKS,
};

export interface RpcAnswer {
  httpStatus: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

/** The name the Mcp-Name header carries: the tool for tools/call, the task for tasks/*. */
function routingName(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'tools/call') return String(params.name);
  if (method.startsWith('tasks/')) return String(params.taskId);
  if (method === 'resources/read') return String(params.uri);
  return undefined;
}

/** The HTTP headers of a 2026-07-28 request: Mcp-Method, and Mcp-Name where the method names one. */
export function framedHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const name = routingName(method, params);
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

/** A JSON-RPC request with the 2026-07-28 _meta envelope; the caller's own _meta entries are kept. */
export function framedRequest(
  method: string,
  params: Record<string, unknown>,
  framing: Framing = TASKS_CLIENT,
  id: number = nextId++,
) {
  const { _meta: callerMeta, ...rest } = params as { _meta?: Record<string, unknown> };
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...rest,
      _meta: {
        ...callerMeta,
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': framing.clientInfo,
        'io.modelcontextprotocol/clientCapabilities': framing.clientCapabilities,
      },
    },
  };
}

/** Reads a JSON body or the last `data:` line of an SSE body. */
export async function readMessage(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .filter(Boolean)
      .at(-1);
    return data ? JSON.parse(data) : {};
  }
  return text ? JSON.parse(text) : {};
}

/** Extra HTTP headers of a request, e.g. `{ authorization: 'Bearer ...' }`. */
export type ExtraHeaders = Record<string, string>;

export async function rpc(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  framing: Framing = TASKS_CLIENT,
  headers: ExtraHeaders = {},
): Promise<RpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...framedHeaders(method, params), ...headers },
    body: JSON.stringify(framedRequest(method, params, framing)),
  });
  const message = await readMessage(response);
  return {
    httpStatus: response.status,
    ...(message.result ? { result: message.result as Record<string, unknown> } : {}),
    ...(message.error ? { error: message.error as RpcAnswer['error'] } : {}),
  };
}

/** rpc() that expects a result and returns it. */
export async function rpcResult(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  framing: Framing = TASKS_CLIENT,
  headers: ExtraHeaders = {},
): Promise<Record<string, unknown>> {
  const answer = await rpc(url, method, params, framing, headers);
  if (!answer.result)
    throw new Error(`${method} answered ${answer.httpStatus} ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/**
 * The raw dispatch the ext-tasks session client needs: it hands over `{ method, params }` already
 * framed (envelope in params._meta); this adds the JSON-RPC id and the 2026-07-28 headers.
 */
export function rawDispatch(url: URL) {
  return async (request: unknown): Promise<JsonRpcResponse> => {
    const { method, params = {} } = request as { method: string; params?: Record<string, unknown> };
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    const framing: Framing = {
      clientInfo: meta['io.modelcontextprotocol/clientInfo'] as Framing['clientInfo'],
      clientCapabilities: meta['io.modelcontextprotocol/clientCapabilities'] as Record<string, unknown>,
    };
    const answer = await rpc(url, method, params, framing);
    if (answer.error) return { kind: 'error', error: answer.error as never };
    return { kind: 'result', result: (answer.result ?? {}) as never };
  };
}
