// The advised poll interval as a pure function of the run: start, steady, near the end, waiting for
// input, the workflow's own suggestion, the clamps, the jitter's bounds and the limiter's minimum;
// and the settings that shape it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  FLOOR_MS,
  type PollPacing,
  pollIntervalMs,
  type RunPace,
  runPace,
  targetIntervalMs,
} from '../../gateway/mcp/poll-pacing.ts';
import { loadSettings } from '../../gateway/settings/index.ts';

const PACING: PollPacing = {
  intervalMs: 2_000,
  fastIntervalMs: 500,
  inputIntervalMs: 30_000,
  maxIntervalMs: 60_000,
  minIntervalMs: 0,
  jitter: 0.2,
};
const NO_JITTER = 0.5; // random 0.5 is the middle of the jitter's range: no change
const working = (elapsedMs: number, more: Partial<RunPace> = {}): RunPace => ({
  waitingForInput: false,
  elapsedMs,
  ...more,
});

describe('the advised interval follows the run', () => {
  test('right after the start it is the fast interval, growing with the time run to the steady one', () => {
    assert.equal(pollIntervalMs(PACING, working(0), NO_JITTER), 500);
    assert.equal(pollIntervalMs(PACING, working(600), NO_JITTER), 500);
    assert.equal(pollIntervalMs(PACING, working(2_000), NO_JITTER), 1_000);
    assert.equal(pollIntervalMs(PACING, working(3_000), NO_JITTER), 1_500);
    assert.equal(pollIntervalMs(PACING, working(4_000), NO_JITTER), 2_000);
    assert.equal(pollIntervalMs(PACING, working(3_600_000), NO_JITTER), 2_000);
  });

  test('near the end by progress/total it shrinks to the time left, not below the fast interval', () => {
    // 60 s run, half done: about 60 s left, the steady interval holds.
    assert.equal(pollIntervalMs(PACING, working(60_000, { progress: 5, total: 10 }), NO_JITTER), 2_000);
    // 90% done after 10 s: about 1.1 s left.
    assert.equal(pollIntervalMs(PACING, working(10_000, { progress: 9, total: 10 }), NO_JITTER), 1_111);
    // 99% done: the fast interval.
    assert.equal(pollIntervalMs(PACING, working(10_000, { progress: 99, total: 100 }), NO_JITTER), 500);
    // All steps done, the run wraps up: the fast interval.
    assert.equal(pollIntervalMs(PACING, working(60_000, { progress: 10, total: 10 }), NO_JITTER), 500);
  });

  test('progress that says nothing of the end leaves the steady interval', () => {
    for (const more of [{ progress: 3 }, { progress: 0, total: 10 }, { progress: 3, total: 0 }]) {
      assert.equal(pollIntervalMs(PACING, working(60_000, more), NO_JITTER), 2_000, JSON.stringify(more));
    }
  });

  test('while the run waits for input it is the input interval, however young the run', () => {
    assert.equal(pollIntervalMs(PACING, { waitingForInput: true, elapsedMs: 100 }, NO_JITTER), 30_000);
    assert.equal(
      pollIntervalMs(PACING, { waitingForInput: true, elapsedMs: 10_000, progress: 9, total: 10 }, NO_JITTER),
      30_000,
    );
  });

  test("the workflow's suggestion replaces the estimate, in any state", () => {
    assert.equal(pollIntervalMs(PACING, working(100, { suggestedMs: 7_000 }), NO_JITTER), 7_000);
    assert.equal(
      pollIntervalMs(PACING, { waitingForInput: true, elapsedMs: 100, suggestedMs: 4_000 }, NO_JITTER),
      4_000,
    );
  });

  test('clamps: never above the max, never below the limiter minimum nor the floor', () => {
    assert.equal(pollIntervalMs(PACING, working(0, { suggestedMs: 3_600_000 }), NO_JITTER), 60_000);
    assert.equal(pollIntervalMs(PACING, working(0, { suggestedMs: 0 }), NO_JITTER), FLOOR_MS);
    const limited = { ...PACING, minIntervalMs: 800 };
    assert.equal(pollIntervalMs(limited, working(0), NO_JITTER), 800);
    assert.equal(pollIntervalMs(limited, working(0, { suggestedMs: 10 }), 0), 800);
    const capped = { ...PACING, inputIntervalMs: 60_000 };
    assert.equal(pollIntervalMs(capped, { waitingForInput: true, elapsedMs: 0 }, 0.999), 60_000);
  });
});

describe('jitter', () => {
  test('spreads the interval within ± the jitter share, both ends reached', () => {
    const run = working(3_600_000);
    assert.equal(pollIntervalMs(PACING, run, 0), 1_600);
    assert.equal(pollIntervalMs(PACING, run, 0.999_999), 2_400);
    const seen = new Set<number>();
    for (let i = 0; i < 1_000; i++) {
      const ms = pollIntervalMs(PACING, run, i / 1_000);
      assert.ok(ms >= 1_600 && ms <= 2_400, `${ms} out of bounds`);
      seen.add(ms);
    }
    assert.ok(seen.size > 500, `clients would poll in step: only ${seen.size} distinct intervals`);
  });

  test('no jitter setting, no spread', () => {
    const still = { ...PACING, jitter: 0 };
    assert.equal(pollIntervalMs(still, working(3_600_000), 0), 2_000);
    assert.equal(pollIntervalMs(still, working(3_600_000), 0.999), 2_000);
  });

  test('jitter never takes the advice below the limiter minimum: a follower is never refused', () => {
    // The hardest case the settings allow: the minimum equal to the steady interval, 50% jitter.
    for (const minIntervalMs of [100, 500, 1_999, 2_000]) {
      const pacing = { ...PACING, minIntervalMs, jitter: 0.5 };
      for (const run of [
        working(0),
        working(10_000, { progress: 99, total: 100 }),
        working(3_600_000),
        working(0, { suggestedMs: 1 }),
        { waitingForInput: true, elapsedMs: 0 },
      ]) {
        for (let i = 0; i < 100; i++) {
          const ms = pollIntervalMs(pacing, run, i / 100);
          assert.ok(ms >= minIntervalMs, `${ms} < ${minIntervalMs} for ${JSON.stringify(run)}`);
          assert.ok(Number.isInteger(ms));
        }
      }
    }
  });
});

describe('runPace: what the gateway sees of a run', () => {
  const createdAt = new Date('2026-12-01T10:00:00Z');
  test('time run from the start, progress, total and the suggestion from the progress answer', () => {
    const pace = runPace(
      { createdAt, state: { status: 'running', progress: { progress: 3, total: 4, pollAfterMs: 1_500 } } },
      createdAt.getTime() + 12_000,
    );
    assert.deepEqual(pace, {
      waitingForInput: false,
      elapsedMs: 12_000,
      progress: 3,
      total: 4,
      suggestedMs: 1_500,
    });
  });

  test('outstanding input requests; a bad suggestion is ignored; no start time counts as long running', () => {
    const state = {
      status: 'running' as const,
      progress: {
        pollAfterMs: 'soon' as unknown as number,
        inputRequests: { ok: { method: 'roots/list' as const } },
      },
    };
    const pace = runPace({ state }, Date.now());
    assert.deepEqual(pace, { waitingForInput: true, elapsedMs: Number.POSITIVE_INFINITY });
    assert.equal(targetIntervalMs(PACING, { ...pace, waitingForInput: false }), 2_000);
    assert.equal(runPace({ createdAt, state }, createdAt.getTime() - 5_000).elapsedMs, 0, 'clock skew');
    const negative = runPace({ state: { status: 'running', progress: { pollAfterMs: -1 } } }, 0);
    assert.equal(negative.suggestedMs, undefined);
  });
});

describe('settings', () => {
  test('defaults follow MCP_POLL_INTERVAL_MS, which keeps its meaning as the steady interval', async () => {
    assert.deepEqual((await loadSettings({})).pollPacing, {
      intervalMs: 2_000,
      fastIntervalMs: 500,
      inputIntervalMs: 30_000,
      maxIntervalMs: 60_000,
      minIntervalMs: 0,
      jitter: 0.2,
    });
    const slow = (await loadSettings({ MCP_POLL_INTERVAL_MS: '90000' })).pollPacing;
    assert.deepEqual(
      [slow.intervalMs, slow.fastIntervalMs, slow.inputIntervalMs, slow.maxIntervalMs],
      [90_000, 500, 90_000, 90_000],
    );
    const quick = (await loadSettings({ MCP_POLL_INTERVAL_MS: '250' })).pollPacing;
    assert.equal(quick.fastIntervalMs, 250);
  });

  test('each setting read, and the old fixed interval still to be had', async () => {
    const fixed = await loadSettings({
      MCP_POLL_INTERVAL_MS: '1000',
      MCP_POLL_FAST_INTERVAL_MS: '1000',
      MCP_POLL_INPUT_INTERVAL_MS: '1000',
      MCP_POLL_MAX_INTERVAL_MS: '1000',
      MCP_POLL_MIN_INTERVAL_MS: '400',
      MCP_POLL_JITTER_PERCENT: '0',
    });
    assert.equal(fixed.pollMinIntervalMs, 400);
    for (const run of [working(0), working(3_600_000), { waitingForInput: true, elapsedMs: 5 }]) {
      assert.equal(pollIntervalMs(fixed.pollPacing, run, Math.random()), 1_000);
    }
  });

  test('bad values stop the start, naming the variable', async () => {
    for (const [name, value] of [
      ['MCP_POLL_FAST_INTERVAL_MS', '3000'], // above the steady interval
      ['MCP_POLL_FAST_INTERVAL_MS', '50'],
      ['MCP_POLL_MAX_INTERVAL_MS', '1000'], // below the steady interval
      ['MCP_POLL_INPUT_INTERVAL_MS', '1000'],
      ['MCP_POLL_INPUT_INTERVAL_MS', '120000'], // above the max
      ['MCP_POLL_JITTER_PERCENT', '51'],
      ['MCP_POLL_JITTER_PERCENT', '0.2'],
    ] as const) {
      await assert.rejects(loadSettings({ [name]: value }), new RegExp(name), `${name}=${value}`);
    }
  });
});
