// The bench's arithmetic and verdicts (no timing is asserted anywhere: the bench only prints).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderReport } from '../../bench/report.ts';
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
