// The bench's arithmetic and verdicts (no timing is asserted anywhere: the bench only prints), and
// the report writer: one run's sections, numbered once, kept sections with the run that made them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renderReport } from '../../bench/report.ts';
import { mergedReport, writeReport } from '../../bench/report-file.ts';
import { distribution } from '../../bench/stats.ts';

const machine = { date: '2026-11-30T00:00:00.000Z', nproc: 2, cpuModel: 'Test CPU', node: 'v20.0.0' };

describe('bench statistics', () => {
  it('takes nearest-rank percentiles: p50 and p99 of 1..100 are 50 and 99', () => {
    const d = distribution(Array.from({ length: 100 }, (_, i) => 100 - i));
    assert.deepEqual([d.n, d.p50, d.p99, d.max, d.mean], [100, 50, 99, 100, 50.5]);
  });

  it('gives NaN, not a crash, for no samples', () => {
    assert.ok(Number.isNaN(distribution([]).p99));
  });
});

describe('bench report', () => {
  it('states the machine and marks each ratio against its target', () => {
    const d = (p50: number, p99: number) => ({ n: 500, p50, p99, mean: p50, max: p99 });
    const report = renderReport({
      machine,
      settings: { calls: 500 },
      overhead: {
        createViaGateway: d(30, 60),
        rawStart: d(10, 50),
        bareProxyStart: d(12, 52),
        rawStartDescribe: d(25, 55),
        getViaGateway: d(12, 30),
        rawDescribe: d(10, 25),
        rawDescribeQuery: d(16, 40),
        callsPerPoll: { describe: 1, query: 0 },
      },
      notice: { notice: d(20, 80), roundTrip: d(100, 200) },
      peer: { unavailable: 'pip install failed: no network' },
    });
    assert.match(report, /2 cores \(nproc\), CPU "Test CPU"; Node\.js v20\.0\.0/);
    assert.match(
      report,
      /tools\/call → CreateTaskResult vs workflow\.start, p50 \| 3\.00x \| ≤ 1\.25x \| \*\*missed\*\*/,
    );
    assert.match(report, /tasks\/get vs describe, p50 \| 1\.20x \| ≤ 1\.15x \| \*\*missed\*\*/);
    assert.match(report, /tasks\/get vs describe, p99 \| 1\.20x \| ≤ 1\.25x \| met/);
    assert.match(
      report,
      /Temporal calls per tasks\/get \(describe \+ query\) \| 1\.00 \(1\.00 \+ 0\.00\) \| 1 \| met/,
    );
    assert.match(report, /completion notice .* p99 \| 80\.0 ms \| ≤ 100 ms \| met/);
    assert.match(report, /Not measured: pip install failed: no network/);
  });
});

describe('bench report: one run, numbered once', () => {
  const machineB = { ...machine, date: '2026-12-06T00:00:00.000Z' };
  /** A file as a full run on the 5th left it, with two sections a bench of one part put in. */
  const before = [
    '# Benchmarks',
    '',
    'Run: 2026-12-05T05:12:55.392Z; 2 cores (nproc); took 609 s.',
    '',
    '## Summary',
    '',
    '| measure | result | target |  |',
    '',
    '## 1. Gateway overhead over raw Temporal',
    '',
    'old overhead',
    '',
    '## 10. The running-task cap',
    '',
    'cap table',
    '',
    '## 12. Adaptive poll interval vs a fixed one',
    '',
    'Run: 2026-12-03 13:07 UTC, load average 0.6 at the start.',
    '',
    '## 16. Waits that Temporal wakes',
    '',
    'an older waits table',
    '',
  ].join('\n');

  it("numbers the run's sections by their order, each once, whatever number their part's heading has", () => {
    const report = renderReport({ machine, settings: {}, seconds: 1 });
    const headings = report.match(/^## \d+\. .*$/gm) ?? [];
    assert.deepEqual(
      headings.map((heading) => Number(/^## (\d+)\./.exec(heading)?.[1])),
      headings.map((_, i) => i + 1),
    );
    const titles = headings.map((heading) => heading.replace(/^## \d+\. /, ''));
    assert.equal(new Set(titles).size, titles.length, titles.join(', '));
    assert.ok(titles.includes('Waits that Temporal wakes'));
  });

  it('a run of some parts (BENCH_PARTS) writes only their sections, each in its place; the rest are kept, each with the Run line of the run that made it', () => {
    const report = renderReport({
      machine: machineB,
      settings: { BENCH_PARTS: 'overhead+waits' },
      measured: ['overhead', 'waits'],
      seconds: 1,
    });
    assert.deepEqual(report.match(/^## .*$/gm), [
      '## Summary',
      '## 1. Gateway overhead over raw Temporal',
      '## 2. Waits that Temporal wakes',
    ]);
    const merged = mergedReport(before, report);
    assert.deepEqual(merged.match(/^## .*$/gm), [
      '## Summary',
      '## 1. Gateway overhead over raw Temporal',
      '## 2. The running-task cap',
      '## 3. Adaptive poll interval vs a fixed one',
      '## 4. Waits that Temporal wakes',
    ]);
    assert.equal(
      merged.match(/older waits table|old overhead/g),
      null,
      "the run's own sections replace the old",
    );
    assert.match(merged, /^Run: 2026-12-06T00:00:00\.000Z; .*; took 1 s\.$/m);
    assert.match(
      merged,
      /^## 2\. The running-task cap\n\nRun: 2026-12-05T05:12:55\.392Z; 2 cores \(nproc\); took 609 s\. \(an earlier run than this report's\)\n\ncap table$/m,
    );
    // A section with its own Run line keeps it, and gets no second one.
    assert.match(merged, /^## 3\. Adaptive poll interval vs a fixed one\n\nRun: 2026-12-03 13:07 UTC/m);
    assert.equal(merged.match(/^Run: /gm)?.length, 3);
    // Written again, the same file: a kept section keeps the run that made it.
    assert.equal(mergedReport(merged, report), merged);
  });

  it('writes the report whole, kept sections and all, to the file', () => {
    const folder = mkdtempSync(join(tmpdir(), 'bench-report-'));
    try {
      const path = join(folder, 'benchmarks.md');
      writeFileSync(path, before);
      const report = renderReport({ machine: machineB, settings: {}, measured: ['overhead'], seconds: 1 });
      writeReport(path, report);
      assert.equal(readFileSync(path, 'utf8'), mergedReport(before, report));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
