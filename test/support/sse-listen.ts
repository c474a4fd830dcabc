// A raw subscriptions/listen stream over HTTP, framed as 2026-07-28, read event by event.
import { readSseFrames } from '../../client/sse.ts';
import { type Framing, PROTOCOL_VERSION, TASKS_CLIENT } from './mcp-http.ts';

export interface ListenStream {
  /** The HTTP status and content type of the answer. */
  status: number;
  contentType: string;
  /** The next JSON-RPC message on the stream; undefined once it ended. */
  next(timeoutMs?: number): Promise<Record<string, unknown> | undefined>;
  /** Every raw frame read so far (comments included), for framing checks. */
  frames: string[];
  /** Leaves: aborts the request, as a client going away does. */
  close(): void;
}

let nextId = 1000;

export async function listen(
  url: URL,
  notifications: Record<string, unknown>,
  framing: Framing = TASKS_CLIENT,
  headers: Record<string, string> = {},
): Promise<ListenStream> {
  const abort = new AbortController();
  const id = nextId++;
  const response = await fetch(url, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': 'subscriptions/listen',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        notifications,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
          'io.modelcontextprotocol/clientInfo': framing.clientInfo,
          'io.modelcontextprotocol/clientCapabilities': framing.clientCapabilities,
        },
      },
    }),
  });
  const frames: string[] = [];
  const queue: Record<string, unknown>[] = [];
  let ended = false;
  let wake: () => void = () => {};
  const contentType = response.headers.get('content-type') ?? '';
  (async () => {
    try {
      if (!contentType.includes('text/event-stream')) {
        queue.push((await response.json()) as Record<string, unknown>);
        return;
      }
      for await (const frame of readSseFrames(response.body as ReadableStream<Uint8Array>)) {
        frames.push(frame.raw);
        if (frame.message !== undefined) queue.push(frame.message as Record<string, unknown>);
        wake();
      }
    } catch {
      // Aborted by close(): the stream is over.
    } finally {
      ended = true;
      wake();
    }
  })();
  return {
    status: response.status,
    contentType,
    frames,
    async next(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0 && !ended) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no message on the listen stream within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return queue.shift();
    },
    close: () => abort.abort(),
  };
}
