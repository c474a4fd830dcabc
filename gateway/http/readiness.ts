// /readyz's answer: whether Temporal answers, asked at most once per second whatever the request
// rate (the probe is unauthenticated: each request must not become a Temporal call), and saying
// nothing of why not (the reason goes to the log, where operators look, not to whoever asks).

/** How long one answer of Temporal stands for every /readyz request. */
const READY_CACHE_MS = 1_000;

export interface ReadinessDeps {
  /** Resolves when Temporal answers within `timeoutMs`; rejects with the reason otherwise. */
  ping(timeoutMs: number): Promise<void>;
  timeoutMs: number;
  /** Told the reason each time readiness turns from ready to not ready. */
  onUnready?: (reason: string) => void;
  now?: () => number;
  cacheMs?: number;
}

export class Readiness {
  private last: { ready: boolean; at: number } | undefined;
  private pending: Promise<boolean> | undefined;
  private wasReady = true;

  constructor(private readonly deps: ReadinessDeps) {}

  /** Whether Temporal answered, from a check at most `cacheMs` old; concurrent callers share one check. */
  check(): Promise<boolean> {
    const now = (this.deps.now ?? Date.now)();
    const cacheMs = this.deps.cacheMs ?? READY_CACHE_MS;
    if (this.last && now - this.last.at < cacheMs) return Promise.resolve(this.last.ready);
    this.pending ??= this.ask().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async ask(): Promise<boolean> {
    const { timeoutMs } = this.deps;
    let timer: NodeJS.Timeout | undefined;
    const tooSlow = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const ping = this.deps.ping(timeoutMs);
    ping.catch(() => {}); // once the bound has answered, a late failure has no one to tell
    let ready = true;
    try {
      await Promise.race([ping, tooSlow]);
    } catch (err) {
      ready = false;
      if (this.wasReady) this.deps.onUnready?.((err as Error).message);
    } finally {
      clearTimeout(timer);
    }
    this.wasReady = ready;
    this.last = { ready, at: (this.deps.now ?? Date.now)() };
    return ready;
  }
}
