// Whether the gateway knows Temporal is down, so a call answers at once instead of at its deadline.
// The client's own retries make a call to a dead server last its whole deadline, the same as one to
// a busy server; the difference is that nothing accepts the connection. So a call that fails, or is
// still unanswered after a moment, has the address asked directly (a TCP connect): refused, Temporal
// is known down, and every call first asks again (one connect shared by concurrent calls) and is
// refused while the address refuses. A server that accepts the connection, however slow, is never
// down, and any call that succeeds clears it. Whether a call given up on could have been sent is
// the gRPC channel's to say: one that was never ready while the call ran sent nothing.
import { connect } from 'node:net';
import { TemporalUnreachableError } from './errors.ts';

/** How long an unanswered call runs before the address is asked whether it accepts connections. */
const ASK_AFTER_MS = 500;
/** How long that connect may take; no answer in time is not a refusal (a firewall may drop it). */
const CONNECT_MS = 1_000;
/** What a connect fails with when nothing can take the connection: the host refuses, or is not there. */
const REFUSALS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND']);

/** The gRPC channel's connectivity, as far as this file reads it (grpc-js's Channel). */
export interface ChannelLike {
  getConnectivityState(tryToConnect: boolean): number;
  watchConnectivityState(current: number, deadline: number, callback: (error?: Error) => void): void;
}

/** grpc-js's ConnectivityState values read here. */
const READY = 2;
const SHUTDOWN = 4;

/**
 * Counts the times the channel became ready (able to send). A call marked while the channel was not
 * ready, that ended before it became ready, was never sent: the client only queues or fails calls
 * while it has no connection.
 */
class ChannelReadiness {
  private readies = 0;

  constructor(private readonly channel: ChannelLike) {
    this.follow(channel.getConnectivityState(false));
  }

  /** A mark for `sentSince`: undefined when the channel is ready now (a call may be sent at once). */
  mark(): number | undefined {
    return this.channel.getConnectivityState(false) === READY ? undefined : this.readies;
  }

  /** Whether a call marked `mark` may have been sent by now. */
  sentSince(mark: number | undefined): boolean {
    return mark === undefined || mark !== this.readies || this.channel.getConnectivityState(false) === READY;
  }

  private follow(state: number): void {
    if (state === SHUTDOWN) return;
    try {
      this.channel.watchConnectivityState(state, Number.POSITIVE_INFINITY, () => {
        const now = this.channel.getConnectivityState(false);
        if (now === READY) this.readies++;
        this.follow(now);
      });
    } catch {
      // Shut down meanwhile: nothing more to follow.
    }
  }
}

export class Reachability {
  private down = false;
  private asking: Promise<boolean> | undefined;
  private readonly target: { host: string; port: number } | undefined;
  private readonly readiness: ChannelReadiness | undefined;

  /**
   * `address`: Temporal's host:port, as the connection has it; without one, nothing is ever known
   * down. `channel`: the connection's gRPC channel; without one, a call given up on counts as sent.
   */
  constructor(
    private readonly address: string | undefined,
    channel?: ChannelLike,
  ) {
    this.target = address === undefined ? undefined : hostAndPort(address);
    this.readiness = channel ? new ChannelReadiness(channel) : undefined;
  }

  /** Throws TemporalUnreachableError (nothing sent) when Temporal is known down and still refuses. */
  async before(): Promise<void> {
    if (this.down && (await this.refused())) throw new TemporalUnreachableError(this.address, false);
  }

  /**
   * Starts the call; rejects with TemporalUnreachableError if it is still unanswered after ASK_AFTER_MS
   * and the address refuses connections: `sent` unless the channel was never ready since the call
   * began. `abort` ends the call given up on.
   */
  watch<T>(start: () => Promise<T>, abort: (reason: unknown) => void): Promise<T> {
    const mark = this.readiness?.mark();
    const call = start();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const ended = () => {
      settled = true;
    };
    call.then(ended, ended);
    const refused = new Promise<never>((_, reject) => {
      timer = setTimeout(async () => {
        if (settled || !(await this.refused()) || settled) return;
        const sent = this.readiness?.sentSince(mark) ?? true;
        const error = new TemporalUnreachableError(this.address, sent);
        reject(error);
        abort(error);
      }, ASK_AFTER_MS);
    });
    return Promise.race([call, refused]).finally(() => clearTimeout(timer));
  }

  /** A call succeeded: Temporal is up. */
  succeeded(): void {
    this.down = false;
  }

  /** A call failed as an unreachable Temporal's do: is it refusing connections? */
  failed(): void {
    this.refused().catch(() => {});
  }

  /** Whether the address refuses connections now (one connect for concurrent askers); sets `down`. */
  private refused(): Promise<boolean> {
    const { target } = this;
    if (!target) return Promise.resolve(false);
    this.asking ??= connectRefused(target.host, target.port)
      .then((refused) => {
        this.down = refused;
        return refused;
      })
      .finally(() => {
        this.asking = undefined;
      });
    return this.asking;
  }
}

function connectRefused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: CONNECT_MS });
    const done = (refused: boolean) => {
      socket.destroy();
      resolve(refused);
    };
    socket.once('connect', () => done(false));
    socket.once('timeout', () => done(false));
    socket.once('error', (err: NodeJS.ErrnoException) => done(REFUSALS.has(err.code ?? '')));
  });
}

/** `host:port`, `[v6]:port`, or a host alone (Temporal's port, 7233), after any `scheme://` prefix. */
function hostAndPort(address: string): { host: string; port: number } | undefined {
  const bare = address.replace(/^[a-z][a-z0-9+.-]*:\/\/\/?/i, '');
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(bare) ?? /^([^:]+)(?::(\d+))?$/.exec(bare);
  if (!match?.[1]) return undefined;
  return { host: match[1], port: match[2] ? Number(match[2]) : 7233 };
}
