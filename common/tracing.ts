// OpenTelemetry for every process (gateway and worker), from the standard OTEL_* settings. Off
// unless asked for: with none of them set, nothing of the SDK is even loaded, so tracing costs
// nothing when off. On: the OTel Node SDK with W3C trace context, spans batched to OTLP over HTTP
// (OTEL_EXPORTER_OTLP_ENDPOINT, default http://localhost:4318), or to stdout with
// OTEL_TRACES_EXPORTER=console. Metrics stay on /metrics (prom-client): no OTel metrics or logs are
// exported unless OTEL_METRICS_EXPORTER says so. The SDK's packages are not the package's
// dependencies (docs/embedding.md): a process asked for traces without them is told which to install.
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { importOptionalPeer } from './optional-peer.ts';

/** A started SDK: what the worker hands Temporal's interceptors, and how to flush at exit. */
export interface Tracing {
  serviceName: string;
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Flushes pending spans and stops the SDK. */
  shutdown(): Promise<void>;
}

const set = (value: string | undefined) => value !== undefined && value.trim() !== '';

/**
 * Whether the environment asks for traces: an OTLP endpoint, or a traces exporter other than
 * `none`; OTEL_SDK_DISABLED=true wins over both. Pure.
 */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return (
    exporters.some((e) => e !== '') ||
    set(env.OTEL_EXPORTER_OTLP_ENDPOINT) ||
    set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}

/** Where spans go, for a start-up line: the exporter and the endpoint's origin and path (no credentials). */
export function traceDestination(env: NodeJS.ProcessEnv = process.env): string {
  if ((env.OTEL_TRACES_EXPORTER ?? '').toLowerCase().split(',').includes('console')) return 'stdout';
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return 'OTLP/HTTP at http://localhost:4318';
  try {
    const url = new URL(endpoint);
    return `OTLP/HTTP at ${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'OTLP/HTTP (endpoint not a URL)';
  }
}

/**
 * Starts the SDK when the environment asks for traces (see tracingWanted); undefined otherwise.
 * `defaultServiceName` names the process unless OTEL_SERVICE_NAME does.
 */
export async function startTracing(
  defaultServiceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  // Loaded here only: a process without tracing never pays for the SDK's modules.
  const feature = 'Tracing (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER)';
  const [{ NodeSDK }, { BatchSpanProcessor, ConsoleSpanExporter }, { OTLPTraceExporter }, resources] =
    await Promise.all([
      importOptionalPeer('@opentelemetry/sdk-node', feature, () => import('@opentelemetry/sdk-node')),
      importOptionalPeer(
        '@opentelemetry/sdk-trace-base',
        feature,
        () => import('@opentelemetry/sdk-trace-base'),
      ),
      importOptionalPeer(
        '@opentelemetry/exporter-trace-otlp-http',
        feature,
        () => import('@opentelemetry/exporter-trace-otlp-http'),
      ),
      importOptionalPeer('@opentelemetry/resources', feature, () => import('@opentelemetry/resources')),
    ]);
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || defaultServiceName;
  const resource = resources.Resource.default()
    .merge(resources.envDetectorSync.detect())
    .merge(new resources.Resource({ 'service.name': serviceName }));
  const console = (env.OTEL_TRACES_EXPORTER ?? '').toLowerCase().split(',').includes('console');
  // The OTLP exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout) itself; the batch
  // processor OTEL_BSP_*.
  const spanProcessor = new BatchSpanProcessor(console ? new ConsoleSpanExporter() : new OTLPTraceExporter());
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [spanProcessor],
    // No automatic instrumentation: the spans are the ones this project makes on purpose.
    instrumentations: [],
    // Logs go to stdout as JSON lines; an empty list keeps the SDK from exporting them by default.
    logRecordProcessors: [],
  });
  sdk.start();
  return { serviceName, resource, spanProcessor, shutdown: () => sdk.shutdown() };
}
