// A real Jaeger for a test file (launcher/jaeger.ts on free ports), and its query API read as a
// span tree: which span is whose child, which links where.
import { freePort } from '../../launcher/free-port.ts';
import { ensureJaeger, type Jaeger, startJaeger } from '../../launcher/jaeger.ts';
import { eventually } from './temporal.ts';

export async function startTestJaeger(): Promise<Jaeger> {
  const binary = process.env.JAEGER_PATH || (await ensureJaeger((chunk) => process.stderr.write(chunk)));
  return startJaeger({
    binary,
    otlpHttpPort: await freePort(),
    uiPort: await freePort(),
    queryGrpcPort: await freePort(),
  });
}

/** A span as the query API (/api/traces) gives it, with its service and tags made plain. */
export interface QueriedSpan {
  traceId: string;
  spanId: string;
  name: string;
  service: string;
  /** The parent (CHILD_OF reference), when the span has one. */
  parentSpanId?: string;
  /** Links to other spans (FOLLOWS_FROM references), with their trace. */
  links: { traceId: string; spanId: string }[];
  tags: Record<string, unknown>;
  /** µs since the epoch. */
  start: number;
  end: number;
}

interface ApiSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references?: { refType: string; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags?: { key: string; value: unknown }[];
  processID: string;
}

interface ApiTrace {
  traceID: string;
  spans: ApiSpan[];
  processes: Record<string, { serviceName: string }>;
}

/** The trace's spans, or [] while Jaeger has none of it. */
export async function traceSpans(jaeger: Pick<Jaeger, 'uiUrl'>, traceId: string): Promise<QueriedSpan[]> {
  const response = await fetch(`${jaeger.uiUrl}/api/traces/${traceId}`);
  if (response.status === 404) return [];
  if (!response.ok) throw new Error(`GET /api/traces/${traceId}: HTTP ${response.status}`);
  const { data } = (await response.json()) as { data: ApiTrace[] };
  return (data ?? []).flatMap((trace) =>
    trace.spans.map((span) => {
      const references = span.references ?? [];
      const parent = references.find((r) => r.refType === 'CHILD_OF');
      return {
        traceId: span.traceID,
        spanId: span.spanID,
        name: span.operationName,
        service: trace.processes[span.processID]?.serviceName ?? '?',
        ...(parent ? { parentSpanId: parent.spanID } : {}),
        links: references
          .filter((r) => r.refType === 'FOLLOWS_FROM')
          .map((r) => ({ traceId: r.traceID, spanId: r.spanID })),
        tags: Object.fromEntries((span.tags ?? []).map((t) => [t.key, t.value])),
        start: span.startTime,
        end: span.startTime + span.duration,
      };
    }),
  );
}

/** Polls the trace until `complete` holds for its spans (exporters batch, so spans arrive late). */
export function traceWhen(
  jaeger: Pick<Jaeger, 'uiUrl'>,
  traceId: string,
  complete: (spans: QueriedSpan[]) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<QueriedSpan[]> {
  let last: QueriedSpan[] = [];
  return eventually(
    async () => {
      last = await traceSpans(jaeger, traceId);
      return complete(last) ? last : undefined;
    },
    timeoutMs,
    what,
    200,
  ).catch((err: Error) => {
    const seen = last.map((s) => `${s.service}:${s.name}`).join(', ') || 'no span';
    throw new Error(`${err.message}; the trace has: ${seen}`);
  });
}

/** A trace's spans searched by service, tag and operation (Jaeger's search API), newest first. */
export async function findTraces(
  jaeger: Pick<Jaeger, 'uiUrl'>,
  query: { service: string; operation?: string; tags?: Record<string, string> },
): Promise<string[]> {
  // Every poll of a task is a trace of its own (one each 250 ms while a run goes on): the search
  // must reach past the newest few to the call that started it.
  const params = new URLSearchParams({ service: query.service, limit: '1000', lookback: '1h' });
  if (query.operation) params.set('operation', query.operation);
  if (query.tags) params.set('tags', JSON.stringify(query.tags));
  const response = await fetch(`${jaeger.uiUrl}/api/traces?${params}`);
  if (!response.ok) throw new Error(`GET /api/traces?${params}: HTTP ${response.status}`);
  const { data } = (await response.json()) as { data: ApiTrace[] };
  return (data ?? []).map((trace) => trace.traceID);
}
