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

/** A notifications/progress the server sent while answering a request. */
export interface ProgressNotice {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  /** Asks for progress (a progressToken) and receives each notification as it arrives. */
  onProgress?: (notice: ProgressNotice) => void;
}

/** Pushed task status: the messages of a subscriptions/listen stream, one at a time. */
export interface TaskStream {
  /** The task ids the server agreed to push. */
  honoured: string[];
  /** The next message (a notifications/tasks, or the closing result); undefined once it ended. */
  next(): Promise<Record<string, unknown> | undefined>;
  close(): void;
}

export interface Rpc {
  (method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
  /** Opens a task subscription; undefined when the server does not push task status. */
  listen?(taskIds: string[]): Promise<TaskStream | undefined>;
}

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
  const rpc: Rpc = async (method, params, call = {}) => {
    const id = nextId++;
    const progressToken = call.onProgress ? `cli-${id}` : undefined;
    const body = {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          ...(progressToken ? { progressToken } : {}),
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
    const contentType = response.headers.get('content-type') ?? '';
    const text =
      call.onProgress && contentType.includes('text/event-stream') && response.body
        ? await readEvents(response.body, (event) => {
            const notice = event as {
              method?: string;
              params?: ProgressNotice & { progressToken?: unknown };
            };
            const params = notice.params;
            if (
              notice.method === 'notifications/progress' &&
              params &&
              params.progressToken === progressToken
            ) {
              const { progressToken: _token, ...progress } = params;
              call.onProgress?.(progress);
            }
          })
        : await response.text();
    const message = parseMessage(text, contentType);
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
  rpc.listen = async (taskIds) => {
    const abort = new AbortController();
    const id = nextId++;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': 'subscriptions/listen',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    };
    const body = {
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        notifications: { taskIds },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
          'io.modelcontextprotocol/clientInfo': clientInfo,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    };
    try {
      const response = await doFetch(options.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      if (!(response.headers.get('content-type') ?? '').includes('text/event-stream') || !response.body) {
        await response.body?.cancel();
        return undefined;
      }
      const messages = eventQueue(response.body);
      const ack = (await messages.next()) as {
        method?: string;
        params?: { notifications?: { taskIds?: string[] } };
      };
      const honoured =
        ack?.method === 'notifications/subscriptions/acknowledged'
          ? ack.params?.notifications?.taskIds
          : undefined;
      if (!honoured || honoured.length === 0) {
        abort.abort();
        return undefined;
      }
      return { honoured, next: messages.next, close: () => abort.abort() };
    } catch {
      abort.abort();
      return undefined;
    }
  };
  return rpc;
}

/** The JSON messages of an SSE body, one per next() as they arrive; undefined once it ended. */
function eventQueue(body: ReadableStream<Uint8Array>): {
  next(): Promise<Record<string, unknown> | undefined>;
} {
  const queue: Record<string, unknown>[] = [];
  let ended = false;
  let wake = () => {};
  (async () => {
    try {
      await readEvents(body, (event) => {
        queue.push(event as Record<string, unknown>);
        wake();
      });
    } catch {
      // Aborted or cut: the stream is over.
    } finally {
      ended = true;
      wake();
    }
  })();
  return {
    async next() {
      while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
      return queue.shift();
    },
  };
}

/**
 * Reads an SSE body as it arrives, handing each event's data to `onEvent` the moment it is
 * complete; returns the whole text for the final answer.
 */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: unknown) => void,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let pending = '';
  for await (const chunk of body) {
    const part = decoder.decode(chunk, { stream: true });
    text += part;
    pending += part;
    let end = pending.indexOf('\n\n');
    while (end >= 0) {
      for (const line of pending.slice(0, end).split('\n')) {
        if (!line.startsWith('data:')) continue;
        try {
          onEvent(JSON.parse(line.slice(5).trim()));
        } catch {
          // Not JSON (a keep-alive comment or a partial line): nothing to hand over.
        }
      }
      pending = pending.slice(end + 2);
      end = pending.indexOf('\n\n');
    }
  }
  return text;
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
