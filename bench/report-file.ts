// Writes docs/benchmarks.md whole or not at all: into a temporary file beside it, then renamed over
// it, so a run killed mid-write leaves the last complete report. The numbered sections of the file
// that the run does not make (the ones the single-part benches put in, 10 and on) are kept, after the
// run's own.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const sectionNumber = (section: string) => /^## (\d+)\./.exec(section)?.[1];

const sections = (text: string) => text.split(/\n(?=## )/).map((s) => s.replace(/\n+$/, ''));

/** The numbered `## N.` sections of `before` whose number `report` has no section for. */
function sectionsNotIn(before: string, report: string): string[] {
  const made = new Set(sections(report).map(sectionNumber));
  return sections(before).filter((s) => {
    const n = sectionNumber(s);
    return n !== undefined && !made.has(n);
  });
}

export function writeReport(path: string, report: string): void {
  const before = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const kept = sectionsNotIn(before, report);
  const text = kept.length > 0 ? `${report.replace(/\n+$/, '')}\n\n${kept.join('\n\n')}\n` : report;
  mkdirSync(dirname(path), { recursive: true });
  // One name, not one per process: a file left by a run killed mid-write is overwritten by the next.
  const partial = join(dirname(path), `.${basename(path)}.partial`);
  writeFileSync(partial, text);
  renameSync(partial, path);
}
