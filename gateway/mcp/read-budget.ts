// How much artifact reading one gateway process takes on at once. A read holds its bytes several
// times over (docs/artifacts.md, "Memory and size"), so reads at once, reads per principal and the
// bytes in flight are each capped; a read past a cap is refused at once with a retry hint, never
// queued, so memory stays bounded whatever the callers do. Per process: memory is per process.

export interface ReadLimits {
  /** Reads (resources/read and resources/list) this gateway serves at once. */
  maxReads: number;
  /** Reads one principal may have at once on this gateway. */
  maxReadsPerPrincipal: number;
  /** Artifact bytes held by reads at once on this gateway. */
  maxBytesInFlight: number;
}

/** Why a read was refused, and a hint of when to try again. */
export interface ReadRefusal {
  limit: 'reads' | 'principal' | 'bytes';
  retryAfterMs: number;
}

// About one large read's time on a 2-core machine (0.5 to 1 s for 20 MiB).
const RETRY_AFTER_MS = 1000;

export class ReadBudget {
  private reads = 0;
  private bytes = 0;
  private readonly byPrincipal = new Map<string, number>();

  constructor(private readonly limits: ReadLimits) {}

  /** Takes a read of `bytes` for `principal`: a release to call once, or why not now. */
  private take(principal: string, bytes: number): { release: () => void } | { refused: ReadRefusal } {
    const mine = this.byPrincipal.get(principal) ?? 0;
    const limit =
      this.reads >= this.limits.maxReads
        ? 'reads'
        : mine >= this.limits.maxReadsPerPrincipal
          ? 'principal'
          : this.bytes + bytes > this.limits.maxBytesInFlight
            ? 'bytes'
            : undefined;
    if (limit) return { refused: { limit, retryAfterMs: RETRY_AFTER_MS } };
    this.reads++;
    this.bytes += bytes;
    this.byPrincipal.set(principal, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.reads--;
        this.bytes -= bytes;
        const left = (this.byPrincipal.get(principal) ?? 1) - 1;
        if (left > 0) this.byPrincipal.set(principal, left);
        else this.byPrincipal.delete(principal);
      },
    };
  }

  /**
   * Runs `read` within the budget, or throws `refuse(refusal)`. What it read is given back when
   * `hold` says (by default at once; a read whose answer holds the bytes, once that has gone out).
   */
  async within<T>(
    taken: { principal: string; bytes: number; hold?: (release: () => void) => void },
    refuse: (refusal: ReadRefusal) => Error,
    read: () => Promise<T>,
  ): Promise<T> {
    const ticket = this.take(taken.principal, taken.bytes);
    if ('refused' in ticket) throw refuse(ticket.refused);
    let value: T;
    try {
      value = await read();
    } catch (err) {
      ticket.release();
      throw err;
    }
    (taken.hold ?? ((release) => release()))(ticket.release);
    return value;
  }
}
