// A noisy neighbour, fairness on against off, in one run, in two regimes: alice's blocks of
// milliseconds (a slot frees every few milliseconds) and of seconds (one frees about once a block's
// time). On a dev server of its own per side, the mining worker as it ships; alice floods it with
// long calls; bob's short call is timed alone, then during the flood. A call not done within the cap
// counts as the cap (the table says so).
import {
  type FloodPlan,
  flood,
  MILLISECOND_BLOCKS,
  type NoisyStack,
  SECOND_BLOCKS,
  SHORT_CALL,
  type SizedFlood,
  shortCall,
  sizeFlood,
  startNoisyStack,
} from '../test/support/noisy-neighbour.ts';
import { LATENCY_HEADER, latencyRow, ratioRow, table } from './report-table.ts';
import { type Distribution, distribution } from './stats.ts';

export const NOISY_HEADING = '## 18. A noisy neighbour: fairness on and off';

export interface NoisyOptions {
  /** Alice's calls in the regime of blocks of milliseconds (those of seconds: SECOND_BLOCKS's). */
  millisecondCalls: number;
  /** Bob's calls alone, and during the flood. */
  calls: number;
  /** Longest a call during the flood is waited for. */
  capMs: number;
}

interface NoisySide {
  regime: string;
  fairness: boolean;
  plan: FloodPlan;
  sized: SizedFlood;
  alone: Distribution;
  during: Distribution;
  /** Calls during the flood not done within the cap. */
  capped: number;
}

export interface NoisyResult {
  options: NoisyOptions;
  sides: NoisySide[];
}

const regimes = (options: NoisyOptions) => [
  {
    regime: 'blocks of ms',
    plan: {
      ...MILLISECOND_BLOCKS,
      calls: options.millisecondCalls,
      backlog: Math.min(options.millisecondCalls - 8, 100),
    },
  },
  { regime: 'blocks of s', plan: SECOND_BLOCKS },
];

export async function measureNoisy(options: NoisyOptions, log: (line: string) => void): Promise<NoisyResult> {
  const sides: NoisySide[] = [];
  for (const { regime, plan } of regimes(options)) {
    for (const fairness of [true, false]) {
      log(`noisy: ${regime}, fairness ${fairness ? 'on' : 'off'}`);
      const stack = await startNoisyStack(fairness);
      try {
        sides.push({ regime, ...(await measureSide(stack, plan, options)) });
      } finally {
        await stack.stop();
      }
    }
  }
  return { options, sides };
}

async function measureSide(stack: NoisyStack, plan: FloodPlan, options: NoisyOptions) {
  await shortCall(stack, 60_000); // warms the worker and the gateway up
  const alone: number[] = [];
  for (let i = 0; i < options.calls; i++) alone.push((await shortCall(stack, 60_000)) ?? 60_000);
  const sized = await sizeFlood(stack, plan);
  await flood(stack, { ...plan, difficulty: sized.difficulty });
  // One at a time, as alone: bob's calls do not queue behind each other. Once two in a row are not
  // done within the cap the rest would wait behind the same backlog: they count as capped unsent.
  const during: (number | undefined)[] = [];
  for (let i = 0; i < options.calls; i++) {
    if (during.length >= 2 && during.at(-1) === undefined && during.at(-2) === undefined) {
      during.push(undefined);
      continue;
    }
    during.push(await shortCall(stack, options.capMs));
  }
  return {
    fairness: stack.fairness,
    plan,
    sized,
    alone: distribution(alone),
    during: distribution(during.map((ms) => ms ?? options.capMs)),
    capped: during.filter((ms) => ms === undefined).length,
  };
}

const sideName = (side: NoisySide) => `${side.regime}, fairness ${side.fairness ? 'on' : 'off'}`;

export function noisySection(r: NoisyResult): string {
  const { calls, capMs } = r.options;
  const rows = r.sides.flatMap((side) => {
    const capped =
      side.capped > 0
        ? ` (${side.capped} not done within ${capMs / 1000} s, counted as ${capMs / 1000} s)`
        : '';
    return [
      latencyRow(`bob alone, ${sideName(side)}`, side.alone),
      latencyRow(`bob during the flood, ${sideName(side)}${capped}`, side.during),
    ];
  });
  const floods = r.sides
    .filter((side) => side.fairness)
    .map(
      ({ regime, plan, sized }) =>
        `${regime}: ${plan.calls} calls of ${plan.blocks} blocks at difficulty ${sized.difficulty} (about ` +
        `${sized.blockMs} ms a block on the whole miner, from its measured speed)`,
    );
  return [
    NOISY_HEADING,
    '',
    `A dev server of its own per side (\`matching.enableFairness=true\` or not; new tasks on one partition`,
    `of the queue either way), the mining worker as it ships (8 activity slots, a mining thread per core)`,
    `and a gateway. Bob's short call (difficulty ${SHORT_CALL.difficulty}, ${SHORT_CALL.blocks} block) is timed from its`,
    '`tools/call` to its result: alone, one at a time, then while alice floods, in two regimes (one',
    'block of each of her runs at a time, so the queue holds a block of every run not being mined):',
    '',
    ...floods.map((line) => `- ${line}`),
    '',
    `Bob's ${calls} calls one at a time. A call not done within ${capMs / 1000} s counts as ${capMs / 1000} s; after`,
    "two such calls in a row the side's other calls are counted so without being sent (each would wait",
    'behind the same backlog). With fairness, bob waits for the next of the 8 slots to free: with',
    "alice's blocks sharing the miner's threads, one ends about every block's time on the whole miner.",
    '',
    table(LATENCY_HEADER, rows),
    '',
    table(
      ['during / alone', 'p50', 'p99'],
      r.sides.map((side) => ratioRow(sideName(side), side.during, side.alone)),
    ),
  ].join('\n');
}
