// The worker's part of a trace: RunActivity spans (children of the workflow's StartActivity
// through the activity's headers) and the exporter sink the workflow interceptors
// (workflows/tracing-interceptors.ts) hand their spans to. With tracing off, the sink is still
// there and drops what it gets: a run a tracing gateway started must not make a worker that does
// not trace log errors for an unknown sink.
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { Tracing } from '../common/tracing.ts';

/**
 * The few run facts a workflow span carries. (The stock sink copies the whole WorkflowInfo onto
 * each span, memo and search attributes included: tool arguments have no place in a span.)
 */
export function spanFactsOf(info: WorkflowInfo): Record<string, string | number> {
  return {
    temporalWorkflowId: info.workflowId,
    temporalRunId: info.runId,
    temporalWorkflowType: info.workflowType,
    temporalTaskQueue: info.taskQueue,
    temporalNamespace: info.namespace,
    temporalAttempt: info.attempt,
  };
}

export function tracingSinks(tracing: Tracing | undefined): InjectedSinks<OpenTelemetrySinks> {
  if (!tracing) return { exporter: { export: { fn: () => {} } } };
  const stock = makeWorkflowExporter(tracing.spanProcessor, tracing.resource);
  return {
    exporter: {
      // Replays re-run the interceptors; their spans were exported the first time.
      export: {
        fn: (info, spans) => stock.export.fn(spanFactsOf(info) as never, spans),
        callDuringReplay: false,
      },
    },
  };
}

/** Activity interceptors when tracing is on; none otherwise. */
export function tracingActivityInterceptors(tracing: Tracing | undefined): WorkerInterceptors['activity'] {
  if (!tracing) return [];
  return [
    (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
  ];
}
