// What a poll says when no worker answered the progress query. Pure.
import { GRPC, grpcCode, isDeadline } from './errors.ts';

export const SAFE = 'The run is safe in Temporal and continues when a worker is back.';

/** Why there is no progress to show: most often, no worker is polling the run's task queue. */
export function queryFailureNote(err: unknown, taskQueue: string, queryTimeoutMs: number): string {
  if (isDeadline(err) || grpcCode(err) === GRPC.FAILED_PRECONDITION) {
    return (
      `The run is in progress, but no worker is polling task queue "${taskQueue}" right now ` +
      `(no answer to the progress query within ${(queryTimeoutMs / 1000).toFixed(1)} s). ${SAFE}`
    );
  }
  const cause = (err as { cause?: Error }).cause?.message;
  return `The run is in progress; progress is unavailable right now (${cause ?? (err as Error).message}).`;
}
