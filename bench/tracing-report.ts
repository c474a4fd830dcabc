// Part 9 of docs/benchmarks.md: tracing off vs on (bench/tracing-side-by-side.ts).
import { describeMachine, machineLine } from './machine.ts';
import { numberSections, sectionTitle, withRunLine } from './report-file.ts';
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
 * A report with `section` (starting with `heading`) put in, for a part run on its own: in place of
 * an earlier section of its title (whatever its number), where it was, or at the end; the sections
 * after it are kept, the summary row marking it failed or pending is dropped, the section carries
 * the Run line of this run (the report's header names another), and every section is numbered once.
 */
export function withSection(report: string, heading: string, section: string): string {
  const title = sectionTitle(heading) ?? heading;
  // The summary row a bench run that failed this part (or had not got to it) left says so no more.
  const status = `| ${title} |`;
  const text = report
    .replace(/\n+$/, '')
    .split('\n')
    .filter((line) => !line.startsWith(status))
    .join('\n');
  const start =
    new RegExp(`^## (?:\\d+\\. )?${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(text)?.index ??
    -1;
  const next = start < 0 ? -1 : text.indexOf('\n## ', start + 1);
  const before = start < 0 ? text : text.slice(0, start).replace(/\n+$/, '');
  const after = start < 0 || next < 0 ? '' : text.slice(next);
  const run = `${machineLine(describeMachine())}; written by a run of this part alone`;
  // One blank line between sections, whatever the section's own end.
  const put = withRunLine(section.replace(/\n+$/, ''), run);
  return numberSections(`${before}\n\n${put}${after ? `\n${after}` : ''}\n`);
}
