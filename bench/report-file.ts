// Writes docs/benchmarks.md whole or not at all: into a temporary file beside it, then renamed over
// it, so a run killed mid-write leaves the last complete report. The sections of the file that the
// run does not make (a part BENCH_PARTS left out, or one a single-part bench put in) are kept where
// they were, each with the Run line of the run that made it; a section whose title the run makes is
// replaced in its place, never kept beside it. Every section is numbered once, in order.
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

/**
 * The report `report` with what `before` holds that it does not: the sections in the order `before`
 * had them (a section of the run in place of the one of its title, so numbers and links stay put),
 * the run's new ones after; each kept section with the Run line of the run that made it.
 */
export function mergedReport(before: string, report: string): string {
  const [header = '', ...made] = sections(report);
  const ours = new Map(made.map((section) => [sectionTitle(section), section]));
  const run = runLineOf(before);
  const stamp = run ? `${run} (an earlier run than this report's)` : 'not recorded (an earlier run)';
  const merged = sections(before)
    .slice(1)
    .map((section) => {
      const title = sectionTitle(section);
      const replaced = ours.get(title);
      ours.delete(title);
      return replaced ?? withRunLine(section, stamp);
    });
  return numberSections(`${[header, ...merged, ...ours.values()].join('\n\n')}\n`);
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
