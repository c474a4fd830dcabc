// A Temporal client interceptor that times every workflow call the gateway makes (start, describe,
// query, signal, cancel, terminate) into mcp_gateway_temporal_request_duration_seconds. The
// long-poll behind handle.result() is not an intercepted call: temporal-mining.ts times it as
// `result-wait`.
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { metrics } from '../metrics.ts';

export function temporalMetricsInterceptor(): WorkflowClientInterceptor {
  return {
    startWithDetails: (input, next) => metrics.timeTemporal('start', () => next(input)),
    describe: (input, next) => metrics.timeTemporal('describe', () => next(input)),
    query: (input, next) => metrics.timeTemporal('query', () => next(input)),
    signal: (input, next) => metrics.timeTemporal('signal', () => next(input)),
    cancel: (input, next) => metrics.timeTemporal('cancel', () => next(input)),
    terminate: (input, next) => metrics.timeTemporal('terminate', () => next(input)),
  };
}
