// What one principal may ask of Temporal at once, on this replica: starts per second (a token
// bucket: a burst of up to a second's worth, then the rate) and waits that hold a Temporal long poll.
// Both refuse before anything is sent, so the caller may simply try again. They are counted in this
// replica's memory: N replicas behind a balancer admit up to N times each bound.
import { StartRateLimitError, WaitLimitError } from './errors.ts';

/** Principals remembered before the idle ones are forgotten (a bucket refilled to full is idle). */
const MAX_REMEMBERED = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** Starts per second per principal; 0 means no bound. */
export class StartRate {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly perSecond: number) {}

  /** Takes one start of `principal`'s, or throws StartRateLimitError saying when the next one comes. */
  take(principal: string, now = Date.now()): void {
    const rate = this.perSecond;
    if (rate <= 0) return;
    const last = this.buckets.get(principal);
    const tokens = Math.min(rate, (last?.tokens ?? rate) + ((now - (last?.at ?? now)) * rate) / 1000);
    if (tokens < 1) {
      this.buckets.set(principal, { tokens, at: now });
      throw new StartRateLimitError(rate, Math.ceil(((1 - tokens) * 1000) / rate));
    }
    if (this.buckets.size >= MAX_REMEMBERED && !last) this.forgetIdle(now);
    this.buckets.set(principal, { tokens: tokens - 1, at: now });
  }

  /** Drops the buckets that have refilled: forgetting them changes no answer. */
  private forgetIdle(now: number): void {
    for (const [principal, bucket] of this.buckets)
      if (bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000 >= this.perSecond)
        this.buckets.delete(principal);
  }
}

/** Concurrent waits per principal; 0 means no bound. */
export class WaitCounts {
  private readonly waiting = new Map<string, number>();

  constructor(private readonly perPrincipal: number) {}

  /** Holds one of `principal`'s waits until the function returned is called; throws WaitLimitError at the bound. */
  reserve(principal: string): () => void {
    const held = this.waiting.get(principal) ?? 0;
    if (this.perPrincipal > 0 && held >= this.perPrincipal) throw new WaitLimitError(this.perPrincipal);
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
