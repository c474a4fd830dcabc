// What one principal may ask of Temporal at once: starts per second (a token bucket: a burst of up
// to a second's worth, then the rate) and waits that hold a Temporal long poll. Both refuse before
// anything is sent, so the caller may simply try again. Each gateway counts in its memory and admits
// its share of a bound (the bound over the gateways Temporal counts, fleet.ts), so the fleet admits
// about the bound, whichever gateway the balancer picks, as gateways join and leave.
import { StartRateLimitError, WaitLimitError } from './errors.ts';
import type { FleetSize } from './fleet.ts';

/** Principals remembered before the idle ones are forgotten (a bucket refilled to full is idle). */
const MAX_REMEMBERED = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** One gateway alone, as when nothing counts the fleet. */
const ALONE: FleetSize = { gateways: 1 };

/**
 * This gateway's share of a per-principal count the fleet shares (waits, streams): at least one, so
 * a fleet larger than the bound admits one each; 0 (no bound) stays 0.
 */
export function gatewayShare(bound: number, fleet: FleetSize): number {
  return bound === 0 ? 0 : Math.max(1, Math.floor(bound / Math.max(1, fleet.gateways)));
}

/** Starts per second per principal, of the whole fleet; 0 means no bound. */
export class StartRate {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond: number,
    private readonly fleet = ALONE,
  ) {}

  /** Takes one start of `principal`'s, or throws StartRateLimitError saying when the next one comes. */
  take(principal: string, now = Date.now()): void {
    if (this.perSecond <= 0) return;
    const { gateways } = this.fleet;
    // This gateway's share of the rate, read now: the fleet's size follows gateways joining and leaving.
    const rate = this.perSecond / Math.max(1, gateways);
    const burst = Math.max(1, rate);
    const last = this.buckets.get(principal);
    const tokens = Math.min(burst, (last?.tokens ?? burst) + ((now - (last?.at ?? now)) * rate) / 1000);
    if (tokens < 1) {
      this.buckets.set(principal, { tokens, at: now });
      throw new StartRateLimitError(this.perSecond, Math.ceil(((1 - tokens) * 1000) / rate), gateways);
    }
    if (this.buckets.size >= MAX_REMEMBERED && !last) this.forgetIdle(now, rate, burst);
    this.buckets.set(principal, { tokens: tokens - 1, at: now });
  }

  /** Drops the buckets that have refilled: forgetting them changes no answer. */
  private forgetIdle(now: number, rate: number, burst: number): void {
    for (const [principal, bucket] of this.buckets)
      if (bucket.tokens + ((now - bucket.at) * rate) / 1000 >= burst) this.buckets.delete(principal);
  }
}

/** Concurrent waits per principal, of the whole fleet; 0 means no bound. */
export class WaitCounts {
  private readonly waiting = new Map<string, number>();

  constructor(
    private readonly perPrincipal: number,
    private readonly fleet = ALONE,
  ) {}

  /** Holds one of `principal`'s waits until the function returned is called; throws WaitLimitError at the bound. */
  reserve(principal: string): () => void {
    const held = this.waiting.get(principal) ?? 0;
    const share = gatewayShare(this.perPrincipal, this.fleet);
    if (share > 0 && held >= share) throw new WaitLimitError(this.perPrincipal, this.fleet.gateways);
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
