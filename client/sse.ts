// Server-sent events as Streamable HTTP sends them: frames end at a blank line, and a frame's
// `data:` lines joined by newlines are one JSON-RPC message. The one SSE parser of the CLI (and of
// the tests' raw streams).

export interface SseFrame {
  /** The frame as sent, without the blank line that ends it (comments and all). */
  raw: string;
  /** Its `data:` lines joined by newlines (the SSE rule); undefined when it has none. */
  data?: string;
  /** `data` parsed as JSON; undefined when there is no data or it is not JSON. */
  message?: unknown;
}

/** Reads one frame's fields. */
function parseSseFrame(raw: string): SseFrame {
  const data: string[] = [];
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data:')) continue;
    // One space after the colon is part of the syntax, not of the value.
    const value = line.slice(5);
    data.push(value.startsWith(' ') ? value.slice(1) : value);
  }
  if (data.length === 0) return { raw };
  const text = data.join('\n');
  try {
    return { raw, data: text, message: JSON.parse(text) };
  } catch {
    return { raw, data: text };
  }
}

/**
 * Yields each frame of an SSE body the moment its blank line arrives. A last frame the server
 * closed without a blank line is yielded too (the SSE rule drops it), so a terse server's final
 * answer is not lost.
 */
export async function* readSseFrames(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body) {
    // CRLF line ends count as LF; a CR split from its LF by a chunk joins it in the next round.
    pending = (pending + decoder.decode(chunk, { stream: true })).replaceAll('\r\n', '\n');
    let end = pending.indexOf('\n\n');
    while (end >= 0) {
      yield parseSseFrame(pending.slice(0, end));
      pending = pending.slice(end + 2);
      end = pending.indexOf('\n\n');
    }
  }
  pending = (pending + decoder.decode()).replace(/\r?\n$/, '');
  if (pending.trim() !== '') yield parseSseFrame(pending);
}
