// A minimal MCP 2026-07-28 requester over Streamable HTTP: one POST per request, framed with the
// per-request `_meta` envelope and the Mcp-Method / Mcp-Name headers. Answers JSON or SSE.
import { TASKS_EXTENSION } from '../gateway/shared/protocol.ts';
import { readSseFrames } from './sse.ts';

const PROTOCOL_VERSION = '2026-07-28';

export interface RpcOptions {
  url: string;
  token?: string;
  /** Declare the Tasks extension on every request (default true). */
  tasks?: boolean;
  clientInfo?: { name: string; version: string };
  fetch?: typeof fetch;
}

class RpcError extends Error {
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
interface ProgressNotice {
  progress: number;
  total?: number;
  message?: string;
}

interface CallOptions {
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

interface JsonRpcMessage {
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The header `Mcp-Name` names the tool of a tools/call and the task of a tasks/* request. */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'tools/call') return params.name as string;
  if (method.startsWith('tasks/')) return params.taskId as string;
  return undefined;
}

/** A JSON-RPC response (not a notification): a result or an error object. */
function isAnswer(message: JsonRpcMessage | undefined): message is JsonRpcMessage {
  if (!message || typeof message !== 'object' || message.method !== undefined) return false;
  return (
    (message.result !== undefined && typeof message.result === 'object') ||
    (typeof message.error === 'object' && message.error !== null)
  );
}

function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('text/event-stream');
}

/** One request as posted: its id, method and params, and what its `_meta` adds. */
interface Posted {
  id: number;
  method: string;
  params: Record<string, unknown>;
  meta?: Record<string, unknown>;
  signal?: AbortSignal;
}

type Post = (request: Posted) => Promise<Response>;

/** POSTs one request, framed as 2026-07-28 asks: headers plus the `_meta` envelope. */
function poster(options: RpcOptions): Post {
  const doFetch = options.fetch ?? fetch;
  const clientInfo = options.clientInfo ?? { name: 'mcp-gateway-cli', version: '0.1.0' };
  const capabilities = options.tasks === false ? {} : { extensions: { [TASKS_EXTENSION]: {} } };
  return ({ id, method, params, meta = {}, signal }) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': method,
    };
    const name = nameOf(method, params);
    if (name) headers['mcp-name'] = name;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const envelope = {
      ...meta,
      'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientInfo': clientInfo,
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } });
    return doFetch(options.url, { method: 'POST', headers, body, signal }).catch((err: Error) => {
      // fetch says only "fetch failed": name the server and the reason (ECONNREFUSED, …).
      const cause = (err.cause as { code?: string; message?: string } | undefined) ?? {};
      throw new Error(`cannot reach ${options.url}: ${cause.code ?? cause.message ?? err.message}`, {
        cause: err,
      });
    });
  };
}

/** The answer of an event stream; progress for `progressToken` is handed over as it arrives. */
async function readStreamed(
  body: ReadableStream<Uint8Array>,
  progressToken: string | undefined,
  call: CallOptions,
) {
  let text = '';
  let message: JsonRpcMessage | undefined;
  for await (const frame of readSseFrames(body)) {
    if (text.length < 200) text += `${frame.raw}\n\n`; // enough to quote in an error
    const event = frame.message as JsonRpcMessage | undefined;
    if (!event || typeof event !== 'object') continue;
    if (event.method === 'notifications/progress' && event.params?.progressToken === progressToken) {
      const { progressToken: _token, ...progress } = event.params as unknown as ProgressNotice & {
        progressToken?: unknown;
      };
      call.onProgress?.(progress);
    } else if (isAnswer(event)) {
      message = event;
    }
  }
  return { text, message };
}

/** The answer of a JSON body (undefined message when it is not JSON). */
async function readJson(response: Response) {
  const text = await response.text();
  try {
    return { text, message: JSON.parse(text) as JsonRpcMessage };
  } catch {
    return { text, message: undefined };
  }
}

/** Opens subscriptions/listen for `taskIds`: the stream once acknowledged, else undefined. */
async function listen(post: Post, id: number, taskIds: string[]): Promise<TaskStream | undefined> {
  const abort = new AbortController();
  try {
    const params = { notifications: { taskIds } };
    const response = await post({ id, method: 'subscriptions/listen', params, signal: abort.signal });
    if (!isEventStream(response) || !response.body) {
      await response.body?.cancel();
      return undefined;
    }
    const messages = messageQueue(response.body);
    const ack = (await messages.next()) as JsonRpcMessage | undefined;
    const honoured =
      ack?.method === 'notifications/subscriptions/acknowledged'
        ? (ack.params?.notifications as { taskIds?: string[] } | undefined)?.taskIds
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
}

export function createRpc(options: RpcOptions): Rpc {
  const post = poster(options);
  let nextId = 1;
  const rpc: Rpc = async (method, params, call = {}) => {
    const id = nextId++;
    const progressToken = call.onProgress ? `cli-${id}` : undefined;
    const response = await post({ id, method, params, meta: progressToken ? { progressToken } : {} });
    // Notifications may come before the answer on a stream.
    const { text, message } =
      isEventStream(response) && response.body
        ? await readStreamed(response.body, progressToken, call)
        : await readJson(response);
    // Anything but a JSON-RPC answer (a proxy's error page, an empty stream) reads as HTTP trouble.
    if (!isAnswer(message))
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
  rpc.listen = (taskIds) => listen(post, nextId++, taskIds);
  return rpc;
}

/** The JSON messages of an SSE body, one per next() as they arrive; undefined once it ended. */
function messageQueue(body: ReadableStream<Uint8Array>): {
  next(): Promise<Record<string, unknown> | undefined>;
} {
  const queue: Record<string, unknown>[] = [];
  let ended = false;
  let wake = () => {};
  (async () => {
    try {
      for await (const frame of readSseFrames(body)) {
        // Frames without a JSON message (keep-alive comments) carry nothing to hand over.
        if (frame.message && typeof frame.message === 'object') {
          queue.push(frame.message as Record<string, unknown>);
          wake();
        }
      }
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
