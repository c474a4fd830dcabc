// What one principal may ask of Temporal at once: starts per second (a token bucket: a burst of up
// to a second's worth, then the rate) and waits that hold a Temporal long poll. Both refuse before
// anything is sent, so the caller may simply try again. Each replica counts in its memory and admits
// its share of a bound (the bound over MCP_GATEWAY_REPLICAS), so the replicas together admit at
// most the bound, whichever replica the balancer picks.
import { StartRateLimitError, WaitLimitError } from './errors.ts';

/** Principals remembered before the idle ones are forgotten (a bucket refilled to full is idle). */
const MAX_REMEMBERED = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** This replica's share of a per-principal bound the replicas share; 0 (no bound) stays 0. */
export function replicaShare(bound: number, replicas: number): number {
  return bound / Math.max(1, replicas);
}

/** Starts per second per principal, of all replicas together; 0 means no bound. */
export class StartRate {
  private readonly buckets = new Map<string, Bucket>();
  /** This replica's rate (and burst): its share of the bound. */
  private readonly rate: number;

  constructor(
    private readonly perSecond: number,
    private readonly replicas = 1,
  ) {
    this.rate = replicaShare(perSecond, replicas);
  }

  /** Takes one start of `principal`'s, or throws StartRateLimitError saying when the next one comes. */
  take(principal: string, now = Date.now()): void {
    const { rate } = this;
    if (rate <= 0) return;
    const last = this.buckets.get(principal);
    const tokens = Math.min(rate, (last?.tokens ?? rate) + ((now - (last?.at ?? now)) * rate) / 1000);
    if (tokens < 1) {
      this.buckets.set(principal, { tokens, at: now });
      throw new StartRateLimitError(this.perSecond, Math.ceil(((1 - tokens) * 1000) / rate), this.replicas);
    }
    if (this.buckets.size >= MAX_REMEMBERED && !last) this.forgetIdle(now);
    this.buckets.set(principal, { tokens: tokens - 1, at: now });
  }

  /** Drops the buckets that have refilled: forgetting them changes no answer. */
  private forgetIdle(now: number): void {
    for (const [principal, bucket] of this.buckets)
      if (bucket.tokens + ((now - bucket.at) * this.rate) / 1000 >= this.rate) this.buckets.delete(principal);
  }
}

/** Concurrent waits per principal, of all replicas together; 0 means no bound. */
export class WaitCounts {
  private readonly waiting = new Map<string, number>();
  /** The waits this replica admits: its whole share (the settings keep the bound at least the replicas). */
  private readonly share: number;

  constructor(
    private readonly perPrincipal: number,
    private readonly replicas = 1,
  ) {
    this.share = Math.floor(replicaShare(perPrincipal, replicas));
  }

  /** Holds one of `principal`'s waits until the function returned is called; throws WaitLimitError at the bound. */
  reserve(principal: string): () => void {
    const held = this.waiting.get(principal) ?? 0;
    if (this.share > 0 && held >= this.share) throw new WaitLimitError(this.perPrincipal, this.replicas);
    this.waiting.set(principal, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.waiting.get(principal) ?? 1) - 1;
      if (left > 0) this.waiting.set(principal, left);
      else this.waiting.delete(principal);
    };
  }
}
