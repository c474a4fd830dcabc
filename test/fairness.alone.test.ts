// Tenants share the worker fairly: on a dev server with task-queue fairness (as npm start runs it),
// while alice's flood of long calls fills the mining worker and its queue, bob's short call completes
// within 5 s and within 10 times its time alone (the median of three); on a server without fairness
// the same call does not (it waits behind alice's backlog, first come, first served). Prints the
// figures. It times calls against the machine's own speed, so it runs when no other file does.
// Blocks of seconds: fairness-seconds.alone.test.ts.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { bobAgainstFlood, describeSide, MILLISECOND_BLOCKS } from './support/noisy-neighbour.ts';

/** Bob's call alone, this many times (the median is his time alone). */
const ALONE = 3;
/** Bob's calls during the flood, one after the other (the median is compared with the bound). */
const DURING = 3;
/**
 * Fairness cannot stop a block that runs: bob waits for the next slot to free, so the blocks are
 * short (about 20 ms each, sized by time, as the miner's speed differs between CPUs).
 */
const bound = (aloneMs: number) => Math.min(5_000, 10 * aloneMs);

const figures: string[] = [];
after(() =>
  console.log(`fairness figures, blocks of milliseconds:\n${figures.map((f) => `  ${f}`).join('\n')}`),
);

const side = async (fairness: boolean) => {
  const measured = await bobAgainstFlood(fairness, MILLISECOND_BLOCKS, {
    // The flood contends for the worker's slots, which fairness shares; one mining thread leaves the
    // other core to Temporal and the gateway, so CPU quota and scheduling do not decide the figures.
    workerEnv: { MINER_THREADS: '1' },
    alone: ALONE,
    during: DURING,
    bound,
  });
  figures.push(describeSide(measured));
  return measured;
};

test("with fairness on, bob's short call during alice's flood completes within 5 s and 10x his time alone", async () => {
  const { during, bound: ms } = await side(true);
  assert.ok(during !== undefined, `bob's call not done within ${ms} ms while alice floods`);
});

test('with fairness off, the same call waits behind the flood past that bound', async () => {
  const { during, bound: ms } = await side(false);
  assert.equal(during, undefined, `bob's call done in ${during} ms, within ${ms} ms, without fairness`);
});
