// Writes docs/benchmarks.md whole or not at all: into a temporary file beside it, then renamed over
// it, so a run killed mid-write leaves the last complete report. The sections of the file that the
// run does not make (a part BENCH_PARTS left out, or one a single-part bench put in) are kept after
// the run's own, each with the Run line of the run that made it; a section whose title the run
// makes is replaced, never kept beside it. Every section is numbered once, in order.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const HEADING = /^## (?:\d+\. )?(.*)$/;

const sections = (text: string) => text.split(/\n(?=## )/).map((s) => s.replace(/\n+$/, ''));

/** A section's title: its heading without its number. */
export const sectionTitle = (section: string) => HEADING.exec(section.split('\n')[0] ?? '')?.[1];

/** The report's own Run line (its header's), without `Run: `. */
const runLineOf = (report: string) => /^Run: (.*)$/m.exec(sections(report)[0] ?? '')?.[1];

/** `section` with a Run line under its heading, `run`, unless it carries one of its own. */
export function withRunLine(section: string, run: string): string {
  if (/^Run: /m.test(section)) return section;
  const [heading, ...rest] = section.split('\n');
  return [heading, '', `Run: ${run}`, ...rest].join('\n');
}

/** `text` with its `## ` sections (the Summary aside) numbered 1, 2, … in order. */
export function numberSections(text: string): string {
  let n = 0;
  return text.replace(/^## (?:\d+\. )?(.*)$/gm, (line, title: string) =>
    title === 'Summary' ? line : `## ${++n}. ${title}`,
  );
}

/** The report `report` with what `before` holds that it does not, each kept section with its run. */
export function mergedReport(before: string, report: string): string {
  const made = new Set(sections(report).map(sectionTitle));
  const run = runLineOf(before);
  const kept = sections(before)
    .slice(1)
    .filter((s) => sectionTitle(s) !== 'Summary' && !made.has(sectionTitle(s)))
    .map((s) =>
      withRunLine(s, run ? `${run} (an earlier run than this report's)` : 'not recorded (an earlier run)'),
    );
  const text = kept.length > 0 ? `${report.replace(/\n+$/, '')}\n\n${kept.join('\n\n')}\n` : report;
  return numberSections(text);
}

export function writeReport(path: string, report: string): void {
  const before = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const text = mergedReport(before, report);
  mkdirSync(dirname(path), { recursive: true });
  // One name, not one per process: a file left by a run killed mid-write is overwritten by the next.
  const partial = join(dirname(path), `.${basename(path)}.partial`);
  writeFileSync(partial, text);
  renameSync(partial, path);
}
