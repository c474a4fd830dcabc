// What a run's history says has changed: Temporal's own long poll on it (GetWorkflowExecutionHistory
// with waitNewEvent, every event type), which answers the moment an event is appended (a memo
// upsert, a signal, a workflow task, the close) or, with nothing new, after the server's long-poll
// interval (about 20 s). A wait follows a run this way instead of looking at it on a timer: an idle
// run costs one request per long-poll interval, and a change is seen at once.
import protos from '@temporalio/proto';
import { type TemporalCalls, timed } from './client.ts';
import type { RunRef } from './run-state.ts';

export type HistoryEvent = protos.temporal.api.history.v1.IHistoryEvent;

/** A new event was appended to the run's history (it still runs), or the run has closed. */
export type RunChange = 'changed' | 'closed';

const ALL_EVENTS = protos.temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT;

/**
 * Deadline of one long poll: longer than the server holds it (its long-poll interval, 20 s by
 * default), so the server answers it empty first; a Temporal that no longer answers fails it.
 */
const LONG_POLL_DEADLINE_MS = 70_000;

/**
 * One run's history followed from the point the first `next()` reads: each `next()` resolves when
 * the history has grown past what the previous one saw (the first: with the history so far, so the
 * caller looks at the run once after it), or the run has closed. Rejects when `signal` aborts (the
 * request in flight is cancelled) or Temporal fails.
 */
export class RunHistoryFeed {
  private token: Uint8Array | undefined;
  private closed = false;
  /** The events of the last page read: what the last `next()` saw appended (in order). */
  events: HistoryEvent[] = [];

  constructor(
    private readonly calls: TemporalCalls,
    private readonly run: RunRef,
    private readonly signal: AbortSignal,
  ) {}

  async next(): Promise<RunChange> {
    while (!this.closed) {
      this.signal.throwIfAborted();
      const page = await this.page();
      this.events = page.history?.events ?? [];
      const events = this.events.length;
      // The last page of a closed run carries no token; a long poll that saw nothing keeps it.
      this.token = page.nextPageToken?.length ? page.nextPageToken : undefined;
      if (!this.token) this.closed = true;
      else if (events > 0) return 'changed';
    }
    return 'closed';
  }

  /**
   * The next page. The first read (no token) answers at once, under the gateway's call deadline; a
   * read with a token is the long poll, under its own longer deadline. Raced with the signal: a
   * connection Temporal dropped may not heed the abort, and the wait must end when it is told.
   */
  private page(): Promise<protos.temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse> {
    const { client, options } = this.calls;
    const timeoutMs = this.token ? LONG_POLL_DEADLINE_MS : options.callTimeoutMs;
    const abort = AbortSignal.any([this.signal, AbortSignal.timeout(timeoutMs)]);
    const read = () =>
      client.withDeadline(Date.now() + timeoutMs, () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: options.namespace,
          execution: {
            workflowId: this.run.workflowId,
            ...(this.run.runId ? { runId: this.run.runId } : {}),
          },
          waitNewEvent: true,
          historyEventFilterType: ALL_EVENTS,
          skipArchival: true,
          ...(this.token ? { nextPageToken: this.token } : {}),
        }),
      );
    return untilAborted(
      timed('history-wait', () => client.withAbortSignal(abort, read), abort),
      abort,
    );
  }
}

/** `work`, or a rejection with the signal's reason as soon as it aborts (`work` is then left to settle). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const { EventType } = protos.temporal.api.enums.v1;

/**
 * Resolves once the run has taken a signal named `signalName` that Temporal recorded after event
 * `afterEventId`: a workflow task completed after it (its handler ran, and what the workflow
 * published then is in its memo), or the run closed. Rejects when the feed's signal aborts.
 */
export async function untilSignalTaken(
  feed: RunHistoryFeed,
  signalName: string,
  afterEventId: number,
): Promise<void> {
  let signaledAt: number | undefined;
  while ((await feed.next()) === 'changed') {
    for (const event of feed.events) {
      const id = Number(event.eventId ?? 0);
      if (
        event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED &&
        id > afterEventId &&
        event.workflowExecutionSignaledEventAttributes?.signalName === signalName
      )
        signaledAt = id;
      else if (
        event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED &&
        signaledAt !== undefined &&
        id > signaledAt
      )
        return;
    }
  }
}
