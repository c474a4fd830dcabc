// How bench/run.ts runs its parts: one after the other, the report saved after each. A part that
// throws is recorded as failed, with its error, and the run goes on with the next one. A SIGINT or
// SIGTERM marks the part under way as stopped, saves the report, stops what the run had started
// (what was registered with onStop) and exits; a second signal exits at once.
import { setTimeout as delay } from 'node:timers/promises';
import type { BenchResults, PartKey } from './report.ts';

/** What a failed part's section says: the error's message, and that of its cause, if any. */
function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (cause === undefined) return message;
  return `${message}\ncaused by: ${cause instanceof Error ? cause.message : String(cause)}`;
}

export class PartRunner {
  private current: PartKey | undefined;
  /** Set on a signal: from then on, what the part under way throws is what stopping it caused. */
  private stopping = false;
  private readonly stoppers: (() => Promise<unknown>)[] = [];

  constructor(
    private readonly results: BenchResults,
    private readonly save: () => void,
    private readonly log: (line: string) => void,
    /** Only these parts run (BENCH_PARTS); every part when absent. */
    private readonly only?: ReadonlySet<PartKey>,
  ) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => void this.stop(signal));
    }
  }

  /** Whether a part is to run in this run. */
  wants(key: PartKey): boolean {
    return !this.only || this.only.has(key);
  }

  /** Runs one part (if wanted) and saves the report; a throw is recorded, not passed on. */
  async run(key: PartKey, measure: () => Promise<void>): Promise<void> {
    if (!this.wants(key)) return;
    this.current = key;
    try {
      await measure();
    } catch (err) {
      if (this.stopping) return;
      this.log(`${key}: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      this.record(key, errorText(err));
    } finally {
      this.current = undefined;
      if (!this.stopping) this.save();
    }
  }

  /** Parts that cannot run (what they need did not start): failed, with why. */
  skip(keys: PartKey[], why: string): void {
    for (const key of keys) this.record(key, why);
    this.save();
  }

  /** Parts that failed so far. */
  get failures(): PartKey[] {
    return Object.keys(this.results.failed ?? {}) as PartKey[];
  }

  /** `stop` is called on a SIGINT or SIGTERM, before the process exits. */
  onStop(stop: () => Promise<unknown>): void {
    this.stoppers.push(stop);
  }

  private record(key: PartKey, message: string): void {
    this.results.failed = { ...this.results.failed, [key]: message };
  }

  private async stop(signal: NodeJS.Signals): Promise<void> {
    this.stopping = true;
    this.results.stoppedBy = signal;
    this.log(`${signal}: saving the parts measured so far, then stopping`);
    if (this.current) this.record(this.current, `stopped by ${signal} before this part finished`);
    this.save();
    const stopping = (async () => {
      for (const stop of this.stoppers.reverse()) await stop().catch(() => {});
    })();
    await Promise.race([stopping, delay(15_000)]);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  }
}
