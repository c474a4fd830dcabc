// Tenants share the worker fairly: on a dev server with task-queue fairness (as npm start runs it),
// while alice's flood of long calls fills the mining worker and its queue, bob's short call completes
// within 5 s and within 10 times its time alone (the median of three); on a server without fairness
// the same call does not (it waits behind alice's backlog, first come, first served). Prints the
// figures. It times calls against the machine's own speed, so it runs when no other file does.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { difficultyFor } from './support/gateway-difficulty.ts';
import { flood, minerSpeed, type NoisyStack, shortCall, startNoisyStack } from './support/noisy-neighbour.ts';

/**
 * Alice's flood: 90 long calls, each of many blocks, against the worker's 8 activity slots. Each run
 * mines one block at a time, so 82 blocks wait in the queue for as long as the flood lasts. Fairness
 * cannot stop a block that runs: bob waits for the next slot to free, so the blocks are short, and
 * sized by time (a block alone takes about `blockMs`), as the miner's speed differs between CPUs.
 */
const FLOOD = { calls: 90, blockMs: 20, blocks: 20, backlog: 60 };
/** Bob's call alone, this many times (the median is his time alone). */
const ALONE = 3;
/** Bob's calls during the flood, one after the other (the median is compared with the bound). */
const DURING = 3;
const BOUND_MS = 5_000;
const RATIO = 10;

const figures: string[] = [];
let stack: NoisyStack | undefined;

after(async () => {
  await stack?.stop();
  console.log(`fairness figures:\n${figures.map((f) => `  ${f}`).join('\n')}`);
});

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Bob's median time alone, then his call's time while alice floods (undefined: not within the bound). */
async function side(fairness: boolean) {
  stack = await startNoisyStack(fairness);
  try {
    // The first call warms the worker and the gateway up.
    assert.ok((await shortCall(stack, 60_000)) !== undefined, "bob's first call completes");
    const alone: number[] = [];
    for (let i = 0; i < ALONE; i++) {
      const ms = await shortCall(stack, 30_000);
      assert.ok(ms !== undefined, "bob's call alone completes");
      alone.push(ms);
    }
    const aloneMs = median(alone);
    const bound = Math.min(BOUND_MS, RATIO * aloneMs);
    const difficulty = difficultyFor(await minerSpeed(stack), FLOOD.blockMs / 1000);
    const flooded = performance.now();
    await flood(stack, { ...FLOOD, difficulty });
    const floodMs = Math.round(performance.now() - flooded);
    const calls: (number | undefined)[] = [];
    const late: string[] = [];
    for (let i = 0; i < DURING; i++) calls.push(await shortCall(stack, bound, (where) => late.push(where)));
    // Not done within the bound counts as longer than any that was.
    const sorted = [...calls].sort(
      (a, b) => (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY),
    );
    const during = sorted[Math.floor(sorted.length / 2)];
    const said = (ms: number | undefined) => (ms === undefined ? `>${bound}` : String(ms));
    figures.push(
      `fairness ${fairness ? 'on ' : 'off'}: bob alone ${alone.join(' / ')} ms (median ${aloneMs}); alice's ` +
        `${FLOOD.calls} calls (difficulty ${difficulty}) started and backlogged in ${floodMs} ms; bob during the flood ` +
        `${calls.map(said).join(' / ')} ms, median ${said(during)} ms` +
        `${during === undefined ? '' : ` (${(during / aloneMs).toFixed(1)}x alone)`}; bound ${bound} ms` +
        `${late.length === 0 ? '' : `; at the bound: ${late.join(', ')}`}`,
    );
    return { aloneMs, bound, during };
  } finally {
    await stack.stop();
    stack = undefined;
  }
}

test("with fairness on, bob's short call during alice's flood completes within 5 s and 10x his time alone", async () => {
  const { during, bound } = await side(true);
  assert.ok(during !== undefined, `bob's call not done within ${bound} ms while alice floods`);
});

test('with fairness off, the same call waits behind the flood past that bound', async () => {
  const { during, bound } = await side(false);
  assert.equal(during, undefined, `bob's call done in ${during} ms, within ${bound} ms, without fairness`);
});
