// What a gateway costs Temporal, counted by Temporal itself: the frontend's Prometheus counter of
// requests (`service_requests`, by operation), summed over the operations a gateway makes (a
// worker's polls, completions and heartbeats are left out). And when a run published its input
// requests, from its history, to time how soon a waiting client hears of them.
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { PROGRESS_MEMO } from '../../workflows/mcp-contract.ts';
import { parseMetrics } from './metrics-scrape.ts';
import { eventually } from './temporal.ts';

/**
 * Every frontend operation a gateway calls. The frontend counts a history read with waitNewEvent
 * (the result and change long polls) as PollWorkflowExecutionHistory.
 */
const GATEWAY_OPERATIONS = [
  'DescribeWorkflowExecution',
  'GetWorkflowExecutionHistory',
  'PollWorkflowExecutionHistory',
  'QueryWorkflow',
  'SignalWorkflowExecution',
  'StartWorkflowExecution',
  'ExecuteMultiOperation',
  'SignalWithStartWorkflowExecution',
  'RequestCancelWorkflowExecution',
  'TerminateWorkflowExecution',
  'ListWorkflowExecutions',
  'CountWorkflowExecutions',
  'DescribeNamespace',
];

/** The requests of gateway operations the Temporal frontend (its metrics at `metricsUrl`) has served. */
export async function frontendRequests(metricsUrl: string, namespace = 'default'): Promise<number> {
  const response = await fetch(metricsUrl);
  if (response.status !== 200) throw new Error(`GET ${metricsUrl} answered ${response.status}`);
  let sum = 0;
  for (const [key, value] of parseMetrics(await response.text())) {
    if (!key.startsWith('service_requests{')) continue;
    if (!key.includes('service_name="frontend"') || !key.includes(`namespace="${namespace}"`)) continue;
    const operation = /operation="([^"]*)"/.exec(key)?.[1] ?? '';
    if (GATEWAY_OPERATIONS.includes(operation)) sum += value;
  }
  return sum;
}

/**
 * The count once it has stopped moving (two reads `gapMs` apart agree): the server publishes its
 * counters with a short delay, so a window starts and ends only when what came before is in.
 */
export function settledRequests(metricsUrl: string, gapMs = 1_500): Promise<number> {
  let previous: number | undefined;
  return eventually(
    async () => {
      const now = await frontendRequests(metricsUrl);
      const settled = now === previous;
      previous = now;
      return settled ? now : undefined;
    },
    30_000,
    'the frontend request count to settle',
    gapMs,
  );
}

/** Requests counted over the time `during` takes, between two settled counts; and that time. */
export async function requestsDuring(
  metricsUrl: string,
  during: () => Promise<void>,
): Promise<{ requests: number; seconds: number }> {
  const before = await settledRequests(metricsUrl);
  const began = performance.now();
  await during();
  const after = await settledRequests(metricsUrl);
  return { requests: after - before, seconds: (performance.now() - began) / 1000 };
}

/** When (epoch ms) the run first published input requests to its memo; undefined if it never did. */
export async function inputPublishedAt(handle: WorkflowHandle): Promise<number | undefined> {
  const history = await handle.fetchHistory();
  for (const event of history.events ?? []) {
    const payload = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[PROGRESS_MEMO];
    if (!payload) continue;
    const progress = defaultPayloadConverter.fromPayload<{ inputRequests?: object } | undefined>(payload);
    if (Object.keys(progress?.inputRequests ?? {}).length === 0) continue;
    const time = event.eventTime;
    return Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);
  }
  return undefined;
}
