// Percentiles and ratios of latency samples (milliseconds).

export interface Distribution {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** The nearest-rank percentile q (0..1) of sorted samples. */
function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export function distribution(samples: number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((s, v) => s + v, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

export function ms(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(1)} ms` : 'n/a';
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a';
}

/** Runs `fn` and appends its duration to `samples`. */
export async function timed<T>(samples: number[], fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await fn();
  samples.push(performance.now() - start);
  return value;
}
