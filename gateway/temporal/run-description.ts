// Reading what describe says of a run: the latest heartbeat of its activity in flight, the time
// of its last change, and why a progress query went unanswered. Pure.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { GRPC, grpcCode, isDeadline } from './grpc-errors.ts';

/** Why there is no progress to show: most often, no worker is polling the run's task queue. */
export function queryFailureNote(err: unknown, taskQueue: string, queryTimeoutMs: number): string {
  if (isDeadline(err) || grpcCode(err) === GRPC.FAILED_PRECONDITION) {
    return (
      `The run is in progress, but no worker is polling task queue "${taskQueue}" right now ` +
      `(no answer to the progress query within ${(queryTimeoutMs / 1000).toFixed(1)} s). ` +
      'The run is safe in Temporal and continues when a worker is back.'
    );
  }
  const cause = (err as { cause?: Error }).cause?.message;
  return `The run is in progress; progress is unavailable right now (${cause ?? (err as Error).message}).`;
}

/** The latest heartbeat details of the activity in flight, if any. */
export function latestHeartbeat(description: WorkflowExecutionDescription): unknown {
  const payload = description.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload as Payload);
  } catch {
    return undefined;
  }
}

function timestampMs(
  ts: { seconds?: unknown; nanos?: number | null } | null | undefined,
): number | undefined {
  if (!ts || ts.seconds === undefined || ts.seconds === null) return undefined;
  return Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** The latest thing that happened to the run: start, close, or an activity's last heartbeat. */
export function lastUpdate(description: WorkflowExecutionDescription): Date {
  const times = [description.startTime.getTime(), description.closeTime?.getTime()];
  for (const activity of description.raw.pendingActivities ?? []) {
    times.push(timestampMs(activity.lastHeartbeatTime), timestampMs(activity.lastStartedTime));
  }
  return new Date(Math.max(...times.filter((t): t is number => typeof t === 'number' && Number.isFinite(t))));
}
