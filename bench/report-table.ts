// The Markdown pieces every section of docs/benchmarks.md is made of: tables, latency rows, ratios
// and verdicts against a target.
import { type Distribution, ms, ratio } from './stats.ts';

export type Row = (string | number)[];

export function table(header: string[], rows: Row[]): string {
  const line = (cells: Row) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export const verdict = (met: boolean) => (met ? 'met' : '**missed**');

export function latencyRow(name: string, d: Distribution): Row {
  return [name, d.n, ms(d.p50), ms(d.p99), ms(d.mean), ms(d.max)];
}

export const LATENCY_HEADER = ['', 'n', 'p50', 'p99', 'mean', 'max'];

/** `a` over `b` at p50 and at p99. */
export function ratioRow(name: string, a: Distribution, b: Distribution): Row {
  return [name, ratio(a.p50 / b.p50), ratio(a.p99 / b.p99)];
}
