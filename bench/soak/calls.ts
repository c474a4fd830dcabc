// Every HTTP call of the soak: routed to the two gateways in turn, timed, and recorded (when it was
// sent, how long its answer took, why it was refused), so the report can tell the worst answer of
// any call during each fault and count the refusals by reason.
import { type Framing, framedHeaders, framedRequest } from '../../test/support/mcp-http.ts';
import type { Principal } from './stack.ts';

/** A call that has not answered by then is given up on (counted `client_timeout`). */
const CALL_TIMEOUT_MS = 30_000;

export interface Answer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
  /** Why the call got no result: the error's data.reason, `code_<n>`, `http_<n>`, `connection`, `client_timeout`. */
  reason?: string;
}

export interface CallRecord {
  method: string;
  /** Which gateway (0 or 1). */
  gateway: number;
  /** When it was sent (epoch ms). */
  sent: number;
  ms: number;
  /** Why the call was refused (never set for a probe of another principal's task). */
  reason?: string;
}

export interface CallOptions {
  framing: Framing;
  /** As a 2025-11-25 client sends it: that revision's header, no per-request envelope. */
  legacy?: boolean;
  /** A probe of another principal's task: its refusal is the expected answer, not counted as one. */
  probe?: boolean;
}

export class SoakCalls {
  readonly records: CallRecord[] = [];
  /** Refusals of the clients' own calls, by reason. */
  readonly refusals = new Map<string, number>();
  private turn = 0;

  constructor(private readonly urls: readonly URL[]) {}

  /** The next gateway in turn (for a call this class does not make: a stream). */
  nextUrl(): { gateway: number; url: URL } {
    const gateway = this.turn++ % this.urls.length;
    return { gateway, url: this.urls[gateway] as URL };
  }

  /** One JSON-RPC request as `principal`, to the next gateway in turn; never throws. */
  async call(
    principal: Principal,
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Answer> {
    const { gateway, url } = this.nextUrl();
    const sent = Date.now();
    const request = options.legacy
      ? { headers: LEGACY_HEADERS, body: { jsonrpc: '2.0', id: nextLegacyId++, method, params } }
      : {
          headers: framedHeaders(method, params),
          body: framedRequest(method, params, options.framing),
        };
    const answer = await send(url, request, principal.token);
    this.records.push({
      method: method === 'tools/call' ? String(params.name) : method,
      gateway,
      sent,
      ms: Date.now() - sent,
      // A probe's refusal is the answer it expects, not a refusal.
      ...(answer.reason && !options.probe ? { reason: answer.reason } : {}),
    });
    if (answer.reason && !options.probe)
      this.refusals.set(answer.reason, (this.refusals.get(answer.reason) ?? 0) + 1);
    return answer;
  }
}

/** The headers of a 2025-11-25 client's POST. */
export const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
let nextLegacyId = 1;

async function send(
  url: URL,
  request: { headers: Record<string, string>; body: unknown },
  token: string,
): Promise<Answer> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...request.headers, authorization: `Bearer ${token}` },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (err) {
    const name = (err as Error).name;
    return { reason: name === 'TimeoutError' || name === 'AbortError' ? 'client_timeout' : 'connection' };
  }
  const message = parse(text, response.headers.get('content-type') ?? '');
  if (message?.result) return { result: message.result as Record<string, unknown> };
  const error = message?.error as Answer['error'];
  if (error) {
    const reason = error.data?.reason;
    return { error, reason: typeof reason === 'string' ? reason : `code_${error.code}` };
  }
  return { reason: `http_${response.status}` };
}

/** A JSON body, or the last `data:` line of an SSE body; undefined when it is neither. */
function parse(text: string, contentType: string): Record<string, unknown> | undefined {
  const body = contentType.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .filter(Boolean)
        .at(-1)
    : text;
  try {
    return body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
