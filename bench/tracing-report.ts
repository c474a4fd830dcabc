// Part 9 of docs/benchmarks.md: tracing off vs on (bench/tracing-side-by-side.ts).
import { LATENCY_HEADER, latencyRow, ratioRow, table } from './report-table.ts';
import type { TracingSideResult } from './tracing-side-by-side.ts';

export const TRACING_HEADING = '## 9. Tracing off vs on';

export function tracingSection(t: TracingSideResult): string {
  return [
    TRACING_HEADING,
    '',
    'Two compiled gateway processes on one parked queue (wait budget 0): one with no `OTEL_*` setting',
    '(tracing off: the OpenTelemetry SDK is not even loaded, every tracing helper is one boolean test),',
    `one exporting every span over OTLP/HTTP to ${t.backend}. One call at a time, the sides in`,
    'rotating order on every round; the worker does not trace.',
    '',
    table(LATENCY_HEADER, [
      latencyRow('`tools/call` → task, tracing off', t.off.create),
      latencyRow('`tools/call` → task, tracing on', t.on.create),
      latencyRow('`tasks/get`, tracing off', t.off.get),
      latencyRow('`tasks/get`, tracing on', t.on.get),
    ]),
    '',
    table(
      ['ratio', 'p50', 'p99'],
      [
        ratioRow('`tools/call`, on / off', t.on.create, t.off.create),
        ratioRow('`tasks/get`, on / off', t.on.get, t.off.get),
      ],
    ),
  ].join('\n');
}

/** A report with the tracing section put in (replacing an earlier one), for bench/tracing.ts. */
export function withTracingSection(report: string, t: TracingSideResult): string {
  return withSection(report, TRACING_HEADING, tracingSection(t));
}

/**
 * A report with `section` (starting with `heading`) put in: in place of an earlier one, where it
 * was, or at the end; the sections after it are kept, and the summary row marking it failed or
 * pending is dropped.
 */
export function withSection(report: string, heading: string, section: string): string {
  // The summary row a bench run that failed this part (or had not got to it) left says so no more.
  const status = `| ${heading.replace(/^## \d+\. /, '')} |`;
  const text = report
    .replace(/\n+$/, '')
    .split('\n')
    .filter((line) => !line.startsWith(status))
    .join('\n');
  const start = text.indexOf(heading);
  const next = start < 0 ? -1 : text.indexOf('\n## ', start + heading.length);
  const before = start < 0 ? text : text.slice(0, start).replace(/\n+$/, '');
  const after = start < 0 || next < 0 ? '' : text.slice(next);
  // One blank line between sections, whatever the section's own end.
  return `${before}\n\n${section.replace(/\n+$/, '')}${after ? `\n${after}` : ''}\n`;
}
