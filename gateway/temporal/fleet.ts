// How many gateways serve the fleet right now, from Temporal's own record of pollers: each gateway
// holds a long poll on a task queue of its own that no work is ever sent to (`<task queue>-gateways`),
// renewed as soon as it ends, and counts the identities Temporal saw poll there recently. The count
// is refreshed in the background; a request reads it from memory.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { fleetGateways } from '../shared/metrics.ts';
import type { TemporalCalls } from './client.ts';

/** What a request reads: the gateways sharing the per-principal bounds, at least 1. */
export interface FleetSize {
  readonly gateways: number;
}

/** Deadline of one poll: Temporal answers empty about a second before it, and the poll is renewed. */
const POLL_DEADLINE_MS = 3_000;
/** How often the pollers are counted again. */
const REFRESH_MS = 2_000;
/** A poller seen this long before the newest one still counts: a few of its polls may be missed. */
const FRESH_MS = 5_000;
/** Polls start at least this far apart: a failed one (Temporal down) is tried again after it. */
const RETRY_MS = 1_000;
/** Deadline of one count: short, since leaving waits for a call under way (see send). */
const COUNT_DEADLINE_MS = 2_000;

/**
 * How soon a gateway that joined or left is counted as such by the others: its last poll stops
 * counting once FRESH_MS older than the newest, seen at the next refresh (docs/configuration.md).
 */
export const SETTLING_MS = 10_000;

/** What describeTaskQueue says of a poller, as far as counting goes (seconds: a Long or a number). */
interface Poller {
  identity?: string | null;
  lastAccessTime?: { seconds?: number | { toString(): string } | null; nanos?: number | null } | null;
}

const millis = (time: Poller['lastAccessTime']): number =>
  time ? Number(String(time.seconds ?? 0)) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : 0;

/**
 * The gateways among `pollers` that polled within FRESH_MS of the newest poll (the server's clock,
 * not this host's), counting `self` even before Temporal lists it; never below 1.
 */
export function fleetFromPollers(pollers: readonly Poller[], self: string): number {
  const newest = Math.max(0, ...pollers.map((poller) => millis(poller.lastAccessTime)));
  const fresh = new Set(
    pollers
      .filter((poller) => poller.identity && newest - millis(poller.lastAccessTime) <= FRESH_MS)
      .map((poller) => poller.identity),
  );
  fresh.add(self);
  return fresh.size;
}

/** This gateway's membership of the fleet and its count of it; 1 until the first count. */
export class GatewayFleet implements FleetSize {
  gateways = 1;
  readonly identity = `${process.pid}@${hostname()}/gateway-${randomUUID().slice(0, 8)}`;
  private readonly left = new AbortController();
  /** The calls under way, each until the client's retries of it have ended too. */
  private readonly underWay = new Set<Promise<unknown>>();

  constructor(
    private readonly calls: TemporalCalls,
    /** The gateways' own queue: named from the task queue they start runs on. */
    private readonly taskQueue: string,
  ) {}

  /** Starts polling and counting in the background, until leave(). */
  join(): void {
    void this.keepPolling();
    void this.keepCounting();
  }

  /**
   * Stops both, and resolves once no call of theirs is under way (within a call's deadline): the
   * client retries an unreachable Temporal after a pause an abort does not end, and a retry on a
   * closed connection throws out of a timer. The others stop counting this gateway within SETTLING_MS.
   */
  async leave(): Promise<void> {
    this.left.abort();
    await Promise.allSettled([...this.underWay]);
  }

  private get queue() {
    return { name: this.taskQueue, kind: 1 /* TASK_QUEUE_KIND_NORMAL */ };
  }

  private async keepPolling(): Promise<void> {
    const { client, options } = this.calls;
    while (!this.left.signal.aborted) {
      const from = Date.now();
      try {
        const poll = { namespace: options.namespace, taskQueue: this.queue, identity: this.identity };
        await this.send(() => client.workflowService.pollActivityTaskQueue(poll), POLL_DEADLINE_MS);
      } catch {
        // Temporal down or the poll cut: the last count stands; poll again shortly.
      }
      await this.pause(RETRY_MS - (Date.now() - from));
    }
  }

  private async keepCounting(): Promise<void> {
    const { client, options } = this.calls;
    while (!this.left.signal.aborted) {
      try {
        const described = await this.send(
          () =>
            client.workflowService.describeTaskQueue({
              namespace: options.namespace,
              taskQueue: this.queue,
              taskQueueType: 2 /* TASK_QUEUE_TYPE_ACTIVITY */,
            }),
          COUNT_DEADLINE_MS,
        );
        this.gateways = fleetFromPollers(described.pollers ?? [], this.identity);
        fleetGateways.set(this.gateways);
      } catch {
        // Temporal unreachable: keep the last count rather than guess.
      }
      await this.pause(REFRESH_MS);
    }
  }

  /**
   * One call under its deadline, cut when the gateway leaves (before its connection closes). Apart
   * from the requests' calls: what this background work meets says nothing of a request's Temporal.
   */
  private send<T>(call: () => Promise<T>, timeoutMs: number): Promise<T> {
    const { client } = this.calls;
    const tracked = () => {
      const made = call();
      this.underWay.add(made);
      void made.catch(() => {}).finally(() => this.underWay.delete(made));
      return made;
    };
    return client.withAbortSignal(this.left.signal, () =>
      client.withDeadline(Date.now() + timeoutMs, tracked),
    );
  }

  private pause(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return delay(ms, undefined, { signal: this.left.signal, ref: false }).catch(() => {});
  }
}
