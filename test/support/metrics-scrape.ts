// Reads the gateway's GET /metrics (Prometheus text) into samples, to compare scrapes.

export type Samples = Map<string, number>;

/** `name{a="x",b="y"}` with labels sorted, the key of a sample. */
export function sampleKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((key) => `${key}="${labels[key]}"`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`;
}

export function parseMetrics(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    const [, name = '', labelText = '', value = ''] = match;
    for (const [, key = '', text = ''] of labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key] = text;
    samples.set(sampleKey(name, labels), Number(value));
  }
  return samples;
}

export async function scrape(origin: string): Promise<Samples> {
  const response = await fetch(new URL('/metrics', origin));
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}

/** How much a sample grew between two scrapes (a sample absent before counts from 0). */
export function delta(
  before: Samples,
  after: Samples,
  name: string,
  labels?: Record<string, string>,
): number {
  const key = sampleKey(name, labels);
  return (after.get(key) ?? 0) - (before.get(key) ?? 0);
}

/**
 * How much every sample of `name` whose labels include `labels` grew, summed (the calls of one
 * operation whatever their outcome, say).
 */
export function summedDelta(
  before: Samples,
  after: Samples,
  name: string,
  labels: Record<string, string>,
): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  let sum = 0;
  for (const key of after.keys()) {
    if (!key.startsWith(`${name}{`) || !wanted.every((pair) => key.includes(pair))) continue;
    sum += (after.get(key) ?? 0) - (before.get(key) ?? 0);
  }
  return sum;
}
