// The gateway's spans, for every layer: the span of one MCP request (its parent the caller's W3C
// trace context), the spans inside it (the wait budget), links from a later poll or push back to
// the trace of the run's start, and the run's trace context kept in its memo. Every helper is a
// plain call-through until enableTracing() runs (common/tracing.ts started the SDK); callers test
// `tracing` first, so with tracing off a request runs none of this file.
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';

/** Whether tracing is on: a live binding, read without a call (enableTracing sets it at start). */
export let tracing = false;
let principalInSpans = false;

/** Turns the helpers on (once the SDK is registered); the principal goes in spans only if asked. */
export function enableTracing(options: { principalAttribute: boolean }): void {
  tracing = true;
  principalInSpans = options.principalAttribute;
}

const tracer = () => trace.getTracer('temporal-mcp-gateway', '0.1.0');

/** A W3C trace context as a carrier: what a memo, a `_meta` or HTTP headers hold. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const MAX_TRACESTATE = 512;

const stringGetter: TextMapGetter<TraceCarrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (carrier as Record<string, string | undefined>)[key],
};

/** The trace context in `source` (a `_meta` object or HTTP headers), when it is well formed. Pure. */
export function traceCarrierOf(source: unknown): TraceCarrier | undefined {
  if (!source || typeof source !== 'object') return undefined;
  const { traceparent, tracestate } = source as Record<string, unknown>;
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent.trim().toLowerCase()))
    return undefined;
  return {
    traceparent: traceparent.trim().toLowerCase(),
    ...(typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE ? { tracestate } : {}),
  };
}

function contextOf(carrier: TraceCarrier | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier, stringGetter) : ROOT_CONTEXT;
}

/** The W3C trace context of the active span (for a memo or a response's `_meta`); {} when none. */
export function activeTraceCarrier(): TraceCarrier {
  const carrier: Record<string, string> = {};
  if (tracing) propagation.inject(context.active(), carrier);
  return carrier;
}

/** The active span's trace id, when tracing is on and a span is active. */
export function activeTraceId(): string | undefined {
  const span = tracing ? trace.getActiveSpan() : undefined;
  return span && isSpanContextValid(span.spanContext()) ? span.spanContext().traceId : undefined;
}

async function runIn<T>(span: Span, parent: Context, fn: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
    throw err;
  } finally {
    span.end();
  }
}

/** What one MCP request is, for its span. */
export interface RequestSpanSubject {
  method: string;
  /** The tool of a tools/call, the task of a tasks/*: the span's name is "<method> <target>". */
  target?: string;
  attributes: Attributes;
  principal: string;
  /** The caller's trace context (the request's `_meta`, else its HTTP headers). */
  parent?: TraceCarrier;
}

/**
 * Runs `fn` in the span of one MCP request, a child of the caller's trace context when it sent one.
 * Off: `fn(undefined)`.
 */
export function inRequestSpan<T>(
  subject: RequestSpanSubject,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracing) return fn(undefined);
  const parent = contextOf(subject.parent);
  const span = tracer().startSpan(
    subject.target ? `${subject.method} ${subject.target}` : subject.method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'mcp.method.name': subject.method,
        ...subject.attributes,
        ...(principalInSpans ? { 'enduser.id': subject.principal } : {}),
      },
    },
    parent,
  );
  return runIn(span, parent, fn);
}

/** Runs `fn` in a child span of the active one. Off: `fn()`. */
export function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!tracing) return fn();
  const parent = context.active();
  return runIn(tracer().startSpan(name, { attributes }, parent), parent, () => fn());
}

/**
 * Adds attributes to the active span (the request's, or an inner one such as the wait budget);
 * undefined values are left out.
 */
export function annotateSpan(attributes: Record<string, AttributeValue | undefined>): void {
  if (!tracing) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  for (const [key, value] of Object.entries(attributes))
    if (value !== undefined) span.setAttribute(key, value);
}

function runLink(run: TraceCarrier | undefined) {
  const linked = run ? trace.getSpanContext(contextOf(run)) : undefined;
  return linked && isSpanContextValid(linked) ? linked : undefined;
}

/**
 * Links the active span to the trace of a run's start (a poll an hour later is its own trace, not a
 * child of a span that closed long ago). Nothing when the span is already in that trace.
 */
export function linkToRun(run: TraceCarrier | undefined, attributes: Attributes = {}): void {
  if (!tracing) return;
  const span = trace.getActiveSpan();
  const linked = runLink(run);
  if (!span || !linked || linked.traceId === span.spanContext().traceId) return;
  span.addLink({ context: linked, attributes: { 'mcp.link': 'run', ...attributes } });
}

/** A span for one push notification about a run, linked to the run's trace. */
export function recordPush(run: TraceCarrier | undefined, name: string, attributes: Attributes): void {
  if (!tracing) return;
  const linked = runLink(run);
  tracer()
    .startSpan(name, {
      kind: SpanKind.PRODUCER,
      attributes,
      links: linked ? [{ context: linked, attributes: { 'mcp.link': 'run' } }] : [],
    })
    .end();
}
