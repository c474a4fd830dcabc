// The MCP layer's answer written onto its socket, JSON answer or event stream, under one write
// deadline: a client that reads nothing of an answer for MCP_WRITE_TIMEOUT_MS is cut, so what the
// answer holds (a read's share of the budget, a stream's slot, a wait, the connection) goes back.
// A client that is slow but reads keeps its answer: the bound is on each slice, not the whole.
import type { ServerResponse } from 'node:http';
import { internalError } from '../mcp/errors.ts';
import { answersCut } from '../shared/metrics.ts';

/**
 * Bytes written at a time: each slice must leave for the kernel within the deadline. A client
 * reading at least this much per deadline (about 2 KiB/s at the default 30 s) is never cut.
 */
const SLICE_BYTES = 64 * 1024;

/** How an answer is written besides its bytes. */
export interface WriteOptions {
  /** The id an internal error answers. */
  requestId: string | number | null;
  /** Longest one slice may wait for the client to read (the socket to drain); then the answer is cut. */
  writeTimeoutMs: number;
  /** Runs right before the response ends (its last log line follows). */
  beforeEnd: () => void;
  /** Runs when the answer is cut because its client stopped reading. */
  onCut: () => void;
  onError?: ((error: Error) => void) | undefined;
}

/** What became of a wait on the socket: it drained, the connection closed, or the deadline passed. */
type Drain = 'drained' | 'closed' | 'stalled';

/** Waits for `event` ('drain' or 'finish') on `res`, its close, or the deadline, whichever is first. */
function awaitSocket(res: ServerResponse, event: 'drain' | 'finish', deadlineMs: number): Promise<Drain> {
  return new Promise((resolve) => {
    const settle = (how: Drain) => {
      clearTimeout(timer);
      res.off(event, onEvent);
      res.off('close', onClose);
      resolve(how);
    };
    const onEvent = () => settle('drained');
    const onClose = () => settle('closed');
    const timer = setTimeout(() => settle('stalled'), deadlineMs);
    res.once(event, onEvent);
    res.once('close', onClose);
  });
}

/**
 * Writes `bytes` slice by slice, each given the deadline to drain; false when the connection is
 * gone, cut here (the client stopped reading) or closed by the client.
 */
async function writeSlices(res: ServerResponse, bytes: Uint8Array, options: WriteOptions): Promise<boolean> {
  for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
    if (res.destroyed) return false;
    if (res.write(bytes.subarray(at, at + SLICE_BYTES))) continue;
    const how = await awaitSocket(res, 'drain', options.writeTimeoutMs);
    if (how === 'stalled') cut(res, options);
    if (how !== 'drained') return false;
  }
  return !res.destroyed;
}

/** Ends the answer; its last bytes get the deadline too, so nothing it holds outlives a stalled client. */
async function endWithin(res: ServerResponse, options: WriteOptions): Promise<void> {
  if (res.destroyed) return;
  res.end();
  if (res.writableFinished || res.destroyed) return;
  if ((await awaitSocket(res, 'finish', options.writeTimeoutMs)) === 'stalled') cut(res, options);
}

/**
 * The connection reset (RST), so the kernel drops the bytes it still holds for the client too, and
 * destroyed: its 'close' returns what the answer held.
 */
function cut(res: ServerResponse, options: WriteOptions): void {
  answersCut.inc();
  options.onCut();
  try {
    res.socket?.resetAndDestroy();
  } catch {
    // Not a TCP socket of its own (TLS over it, a pipe): destroyed without the reset.
  }
  res.destroy();
}

/**
 * Pipes an event stream to the client until it ends, the client goes away or stops reading; then
 * the stream is cancelled at once (its source stops), not at its next frame. A stream idle by
 * design waits on its source, not on the socket, and is never cut.
 */
async function pipeEventStream(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  signal: AbortSignal,
  options: WriteOptions,
): Promise<void> {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted || !(await writeSlices(res, value, options))) return;
    }
  } catch {
    // The stream ended under us (the client left): nothing more to write.
  } finally {
    signal.removeEventListener('abort', stop);
    if (signal.aborted || res.destroyed) stop();
  }
}

/**
 * A JSON answer's bytes in one buffer. The SDK's answer arrives as one chunk: it is written as it
 * is, not copied again (`arrayBuffer()` would), which spares a large resources/read one more copy.
 */
async function bodyBytes(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/**
 * Writes the web Response `produce` makes onto the Node.js response. (The SDK's Node adapter
 * streams every body chunked: a JSON answer then leaves in two writes, and the client wakes up
 * twice for it.) `signal` aborts when the client goes away before the answer is complete.
 */
export async function writeResponse(
  res: ServerResponse,
  produce: (signal: AbortSignal) => Promise<Response>,
  options: WriteOptions,
): Promise<void> {
  let answered = false;
  const callerLeft = new AbortController();
  res.on('close', () => {
    if (!answered) callerLeft.abort();
  });
  let response: Response;
  try {
    response = await produce(callerLeft.signal);
  } catch (err) {
    options.onError?.(err instanceof Error ? err : new Error(String(err)));
    response = Response.json(internalError(options.requestId), { status: 500 });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (response.body === null || !(headers['content-type'] ?? '').includes('text/event-stream')) {
    const body = response.body === null ? undefined : await bodyBytes(response.body);
    if (body) headers['content-length'] = String(body.length);
    answered = true;
    options.beforeEnd();
    res.writeHead(response.status, headers);
    if (!body || (await writeSlices(res, body, options))) await endWithin(res, options);
    return;
  }
  res.writeHead(response.status, headers);
  await pipeEventStream(response.body, res, callerLeft.signal, options);
  answered = true;
  options.beforeEnd();
  await endWithin(res, options);
}
