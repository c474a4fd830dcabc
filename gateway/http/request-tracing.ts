// The span of one POST /mcp, as the HTTP layer sees the request: its method and target from the
// body, its parent the caller's W3C trace context (`params._meta.traceparent`/`tracestate`, else
// the HTTP `traceparent`/`tracestate` headers), and, once it runs, its trace id on the request's
// log lines and in the answer (`result._meta.traceparent` of a JSON answer, and the W3C
// `traceresponse` header), so a log line, a trace and a Web UI run lead to each other.
// The route calls it only with tracing on.
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  activeTraceCarrier,
  activeTraceId,
  inRequestSpan,
  type RequestSpanSubject,
  traceCarrierOf,
} from '../shared/tracing.ts';
import type { McpBody } from './body.ts';

const MAX_TARGET_LENGTH = 200;

const text = (value: unknown) =>
  typeof value === 'string' && value !== '' ? value.slice(0, MAX_TARGET_LENGTH) : undefined;

/** What a request's body says about itself, for its span. Pure. */
export function requestSpanSubject(
  { envelope, taskId }: Pick<McpBody, 'envelope' | 'taskId'>,
  headers: IncomingMessage['headers'],
  principal: string,
): RequestSpanSubject {
  const { params, id } = envelope;
  const name = text(envelope.method) ?? 'mcp';
  const tool = text(envelope.tool);
  const task = text(taskId);
  const meta = params._meta as Record<string, unknown> | undefined;
  const version =
    text(meta?.['io.modelcontextprotocol/protocolVersion']) ?? text(headers['mcp-protocol-version']);
  const attributes: RequestSpanSubject['attributes'] = {};
  if (tool) attributes['gen_ai.tool.name'] = tool;
  if (task) attributes['mcp.task.id'] = task;
  if (version) attributes['mcp.protocol.version'] = version;
  if (id !== undefined) attributes['jsonrpc.request.id'] = String(id);
  // The envelope's trace context wins: it is the MCP request's own; the headers may be a proxy's.
  const parent = traceCarrierOf(meta) ?? traceCarrierOf(headers);
  return { method: name, target: tool ?? task, attributes, principal, ...(parent ? { parent } : {}) };
}

/**
 * Adds the request's trace context to a JSON-RPC result's `_meta` (MCP lets any result carry
 * `_meta`); any other answer (an error, an event stream) is returned as it is.
 */
async function withTraceMeta(response: Response): Promise<Response> {
  const carrier = activeTraceCarrier();
  if (!carrier.traceparent) return response;
  const headers = new Headers(response.headers);
  headers.set('traceresponse', carrier.traceparent);
  if (!(headers.get('content-type') ?? '').includes('application/json') || response.body === null) {
    return new Response(response.body, { status: response.status, headers });
  }
  const raw = await response.text();
  let body: { result?: { _meta?: Record<string, unknown> } };
  try {
    body = JSON.parse(raw);
  } catch {
    return new Response(raw, { status: response.status, headers });
  }
  if (!body || typeof body.result !== 'object' || body.result === null) {
    return new Response(raw, { status: response.status, headers });
  }
  body.result._meta = { ...body.result._meta, ...carrier };
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, headers });
}

/**
 * Serves one /mcp request in its span: `run` gets `decorate`, which adds the trace context to the
 * answer. Its log lines carry `traceId` from here on.
 */
export function traceRequest<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  principal: string,
  run: (withTrace: (response: Response) => Promise<Response>) => Promise<T>,
): Promise<T> {
  return inRequestSpan(requestSpanSubject(request.mcpBody, request.raw.headers, principal), () => {
    const traceId = activeTraceId();
    if (traceId) {
      const child = request.log.child({ traceId });
      request.log = child;
      reply.log = child;
    }
    return run(withTraceMeta);
  });
}
