// Tenants share the worker fairly when activities take seconds: the worker as it ships (8 activity
// slots, a miner thread per core), alice's flood of blocks of about 1.5 s each, bob's short call. With
// task-queue fairness bob waits about one freed slot; without it, behind alice's whole backlog.
// Prints the figures. It times calls against the machine's own speed, so it runs when no other file does.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { bobAgainstFlood, describeSide, SECOND_BLOCKS, type SizedFlood } from './support/noisy-neighbour.ts';

/** Bob's call alone, this many times (the median is his time alone). */
const ALONE = 3;
/** Bob's calls during the flood, one after the other (the median is compared with the bound). */
const DURING = 3;

/**
 * The bound, from slots and block length. Alice's blocks hold all 8 slots and share the miner's
 * threads, each at an eighth of its speed, so one of them ends on average every `blockMs` (a block's
 * hashes over the whole miner's speed), however many slots there are. The hashes a block needs are
 * memoryless, so the wait for that next freed slot is exponential with that mean: bob's median of
 * three passes three blocks' time with a chance under 1%. One second more for a loaded machine's
 * workflow tasks. Without fairness he waits behind her backlog: 40 blocks or more.
 */
const bound = (aloneMs: number, flood: SizedFlood) => aloneMs + 3 * flood.blockMs + 1_000;

const figures: string[] = [];
after(() => console.log(`fairness figures, blocks of seconds:\n${figures.map((f) => `  ${f}`).join('\n')}`));

const side = async (fairness: boolean) => {
  const measured = await bobAgainstFlood(fairness, SECOND_BLOCKS, { alone: ALONE, during: DURING, bound });
  figures.push(describeSide(measured));
  return measured;
};

test("with fairness on, bob's short call waits about one freed slot behind alice's blocks of seconds", async () => {
  const { during, bound: ms } = await side(true);
  assert.ok(during !== undefined, `bob's call not done within ${ms} ms while alice floods`);
});

test('with fairness off, the same call waits behind her backlog past that bound', async () => {
  const { during, bound: ms } = await side(false);
  assert.equal(during, undefined, `bob's call done in ${during} ms, within ${ms} ms, without fairness`);
});
