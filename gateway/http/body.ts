// The body of /mcp: parsed by Fastify's own JSON parser (which refuses prototype poisoning) behind a
// nesting limit checked on the raw text first (a body nested deeper than any real request parses
// fine but overflows the stack later, when the SDK serialises it: refused here it is a 400 with a
// JSON-RPC error); then read once as JSON-RPC envelopes, each with what the method table says it
// is and touches (readMcpBody), which every step that routes, checks, limits, logs or traces by
// them reads before the SDK parses the body properly. Untrusted input:
// every field is checked for its type, and a body that is no message reads empty.
import type { FastifyInstance } from 'fastify';
import type { MessageReading } from '../mcp/method-context.ts';
import type { Envelope } from '../shared/protocol.ts';

/** Deepest nesting of arrays and objects a request body may have. */
const MAX_JSON_DEPTH = 64;

const JSON_TOO_DEEP = 'MCP_JSON_TOO_DEEP';

/** Whether `text` nests arrays/objects deeper than `limit` (a linear scan; strings are skipped). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/** Installs the parser for application/json bodies on `app` (an encapsulated plugin scope). */
export function limitJsonDepth(app: FastifyInstance): void {
  const limit = MAX_JSON_DEPTH;
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestsDeeperThan(text, limit)) {
      const error = Object.assign(new Error(`the body nests arrays or objects deeper than ${limit} levels`), {
        code: JSON_TOO_DEEP,
        statusCode: 400,
      });
      done(error, undefined);
      return;
    }
    parse(request, text, done);
  });
}

// ---- the JSON-RPC envelope --------------------------------------------------------------------------

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const string = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The envelope of one message (a batch has several). */
function envelopeOf(message: unknown): Envelope {
  const body = record(message) ?? {};
  const method = string(body.method);
  const params = record(body.params) ?? {};
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : undefined;
  return {
    ...(id === undefined ? {} : { id }),
    ...(method === undefined ? {} : { method }),
    params,
    ...(method === 'tools/call' && string(params.name) ? { tool: params.name as string } : {}),
  };
}

/** One message of a body: its envelope, and what it is and touches (mcp/methods.ts). */
export interface McpMessage {
  body: unknown;
  envelope: Envelope;
  reading: MessageReading;
}

/** A request body as every step of /mcp reads it: each message with its envelope, read once. */
export interface McpBody {
  messages: McpMessage[];
  /** The envelope of a body that is one message; empty for a batch. */
  envelope: Envelope;
  /** The task a body of one message is about, as written (logs and spans). */
  taskId?: string;
  /** The id to echo in an error answer: the request's id, or null (a batch, or none). */
  id: string | number | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body of a POST to /mcp, read once after it is parsed (mcp-route.ts). */
    mcpBody: McpBody;
  }
}

/** The body read once: each message's envelope, and `read` tells what the message is and touches. */
export function readMcpBody(
  body: unknown,
  read: (envelope: Envelope, message: unknown) => MessageReading,
): McpBody {
  const batch = Array.isArray(body);
  const messages = (batch ? body : [body]).map((message) => {
    const envelope = envelopeOf(message);
    return { body: message, envelope, reading: read(envelope, message) };
  });
  const single = batch ? undefined : messages[0];
  const envelope = single?.envelope ?? { params: {} };
  const taskId = single?.reading.taskId;
  return { messages, envelope, id: envelope.id ?? null, ...(taskId === undefined ? {} : { taskId }) };
}
