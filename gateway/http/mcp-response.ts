// Serves the SDK's web-standard MCP handler on a Node.js request: the request converted by the SDK's
// own toWebRequest; a JSON answer written in one piece with its Content-Length, an event stream
// piped as it comes. (The SDK's Node adapter streams every body chunked: a JSON answer then leaves
// in two writes, and the client wakes up twice for it.) When the client goes away before the
// answer, the request's signal aborts, so a tool call waiting for its run stops waiting.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toWebRequest } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { errorBody, INTERNAL_ERROR } from '../mcp/json-rpc-errors.ts';

export interface FetchMcpHandler {
  fetch(request: Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<Response>;
}

/** The id of a parsed JSON-RPC request, to echo in an error answer; null when there is none. */
function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

async function pipeEventStream(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const closed = new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  try {
    for await (const chunk of body) {
      if (signal.aborted) break;
      if (!res.write(chunk))
        await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  } catch {
    // The stream ended under us (the client left): nothing more to write.
  }
}

export async function serveMcpRequest(
  handler: FetchMcpHandler,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  authInfo: AuthInfo,
  onError?: (error: Error) => void,
): Promise<void> {
  await writeResponse(
    res,
    async (signal) => {
      const request = await toWebRequest(req, parsedBody, { signal });
      return handler.fetch(request, { authInfo, ...(parsedBody === undefined ? {} : { parsedBody }) });
    },
    parsedBody,
    onError,
  );
}

/**
 * Writes the web Response `produce` makes onto the Node.js response. `signal` aborts when the
 * client goes away before the answer is complete.
 */
export async function writeResponse(
  res: ServerResponse,
  produce: (signal: AbortSignal) => Promise<Response>,
  parsedBody: unknown,
  onError?: (error: Error) => void,
): Promise<void> {
  let answered = false;
  const gone = new AbortController();
  res.on('close', () => {
    if (!answered) gone.abort();
  });
  let response: Response;
  try {
    response = await produce(gone.signal);
  } catch (err) {
    onError?.(err instanceof Error ? err : new Error(String(err)));
    response = Response.json(errorBody(requestId(parsedBody), INTERNAL_ERROR, 'Internal error'), {
      status: 500,
    });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (response.body === null || !(headers['content-type'] ?? '').includes('text/event-stream')) {
    const body = response.body === null ? undefined : Buffer.from(await response.arrayBuffer());
    if (body) headers['content-length'] = String(body.length);
    answered = true;
    res.writeHead(response.status, headers).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  await pipeEventStream(response.body, res, gone.signal);
  answered = true;
  res.end();
}
