// Workflow interceptors for OpenTelemetry (bundled with every workflow): a run the gateway started
// while tracing gets its RunWorkflow span, a child of the start's span through Temporal's headers,
// and a StartActivity span per activity, whose context travels on to the activity. A run started
// without tracing (no trace context in its memo) passes straight through, so it costs nothing.
// The memo is known only once the run is initialized (after the interceptors are made), so each
// call decides; the memo is the start's, fixed in history, and replays decide the same way. Spans
// leave the sandbox through the `exporter` sink the worker registers (worker/tracing.ts).
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { type WorkflowInterceptors, workflowInfo } from '@temporalio/workflow';

const traced = (): boolean => Boolean(workflowInfo().memo?.trace);

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/** `inner` for a traced run; for any other, each of its methods just calls `next`. */
function whenTraced<T extends object>(inner: T): T {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as Method;
      return (input: unknown, next: (input: unknown) => unknown) =>
        traced() ? method.call(target, input, next) : next(input);
    },
  });
}

export const interceptors = (): WorkflowInterceptors => ({
  inbound: [whenTraced(new OpenTelemetryInboundInterceptor())],
  outbound: [whenTraced(new OpenTelemetryOutboundInterceptor())],
  internals: [whenTraced(new OpenTelemetryInternalsInterceptor())],
});
