// The gateway's Prometheus metrics (prom-client): one registry and its instruments, recorded where
// things happen with prom-client's own calls (`toolCalls.inc({ tool, outcome })`,
// `waitSeconds.startTimer()`). Served as text by GET /metrics (gateway/app.ts).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

const registry = new Registry();
// Process metrics under their usual names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, ...).
collectDefaultMetrics({ register: registry });

/**
 * How a tools/call was answered: `inline` with a final result (completed, failed, cancelled, not
 * found); `task` with a task handle; `input_required` with an input-required result (2026-07-28);
 * `start_poll` with a handle the agent polls (running or input_required JSON); `error` with a
 * JSON-RPC error.
 */
export type ToolCallOutcome = 'inline' | 'task' | 'input_required' | 'start_poll' | 'error';

/** How a tasks/* request was answered. */
export type TaskRequestOutcome = 'ok' | 'not_found' | 'invalid_params' | 'missing_capability' | 'error';

/**
 * How a bounded wait ended: the run closed, the budget ran out, the caller left, the run asked for
 * input, the gateway is shutting down, or an error.
 */
export type WaitOutcome = 'closed' | 'budget_spent' | 'caller_gone' | 'input_required' | 'shutdown' | 'error';

/** The Temporal calls the gateway makes. */
export type TemporalOperation =
  | 'start'
  /** Taking and freeing a slot of the running-task cap (a holder run started or terminated). */
  | 'result-wait'
  /** A long poll on a run's history for its next event (a wait that follows the run). */
  | 'history-wait'
  | 'describe'
  | 'query'
  | 'signal'
  | 'cancel'
  | 'terminate'
  | 'ping';

export const toolCalls = new Counter({
  name: 'mcp_gateway_tool_calls_total',
  help: 'MCP tools/call requests by tool and outcome (inline, task, input_required, start_poll, error)',
  labelNames: ['tool', 'outcome'] as const,
  registers: [registry],
});

export const taskRequests = new Counter({
  name: 'mcp_gateway_task_requests_total',
  help: 'Tasks extension requests (tasks/get, tasks/update, tasks/cancel) by method and outcome',
  labelNames: ['method', 'outcome'] as const,
  registers: [registry],
});

export const waitSeconds = new Histogram({
  name: 'mcp_gateway_wait_duration_seconds',
  help: 'Time a tools/call waited for its run within the wait budget, by how the wait ended',
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 20, 30, 45, 60, 120],
  registers: [registry],
});

export const temporalSeconds = new Histogram({
  name: 'mcp_gateway_temporal_request_duration_seconds',
  help: 'Latency of the Temporal calls the gateway makes, by operation and outcome (ok, error, aborted)',
  labelNames: ['operation', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const pollsRateLimited = new Counter({
  name: 'mcp_gateway_polls_rate_limited_total',
  help: 'Polls (tasks/get, get_mining_result) refused because the caller polled too often',
  registers: [registry],
});

export const answersCut = new Counter({
  name: 'mcp_gateway_answers_cut_total',
  help: 'Answers cut because their client read none of them within MCP_WRITE_TIMEOUT_MS',
  registers: [registry],
});

export const taskWatches = new Gauge({
  name: 'mcp_gateway_task_watches',
  help: 'Open long polls on Temporal for pushed task status (one per subscribed running task)',
  registers: [registry],
});

export const taskSubscriptions = new Gauge({
  name: 'mcp_gateway_task_subscriptions',
  help: 'Open subscriptions/listen streams carrying task notifications',
  registers: [registry],
});

export const fleetGateways = new Gauge({
  name: 'mcp_gateway_fleet_gateways',
  help: 'Gateways sharing the per-principal bounds, as Temporal last counted them (this one included)',
  registers: [registry],
});

/** Open task watches and subscription streams right now. */
export async function openTaskStreams(): Promise<{ watches: number; subscriptions: number }> {
  const value = async (gauge: Gauge) => (await gauge.get()).values[0]?.value ?? 0;
  return { watches: await value(taskWatches), subscriptions: await value(taskSubscriptions) };
}

/** Increments the gauge; the returned function decrements it once. */
export function countOpen(gauge: Gauge): () => void {
  gauge.inc();
  let open = true;
  return () => {
    if (open) gauge.dec();
    open = false;
  };
}

/** The registry in Prometheus text exposition format. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
