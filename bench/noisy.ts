// A noisy neighbour, fairness on against off, in one run: on a dev server of its own (each side in
// turn), alice floods the mining worker with hundreds of long calls; bob's short call is timed alone,
// then during the flood. A call not done within the cap counts as the cap (the table says so).
import {
  flood,
  type NoisyStack,
  SHORT_CALL,
  shortCall,
  startNoisyStack,
} from '../test/support/noisy-neighbour.ts';
import { LATENCY_HEADER, latencyRow, ratioRow, table } from './report-table.ts';
import { type Distribution, distribution } from './stats.ts';

export const NOISY_HEADING = '## 18. A noisy neighbour: fairness on and off';

export interface NoisyOptions {
  flood: { calls: number; difficulty: number; blocks: number };
  /** Bob's calls alone, and during the flood. */
  calls: number;
  /** Longest a call during the flood is waited for. */
  capMs: number;
}

interface NoisySide {
  fairness: boolean;
  alone: Distribution;
  during: Distribution;
  /** Calls during the flood not done within the cap. */
  capped: number;
}

export interface NoisyResult {
  options: NoisyOptions;
  sides: NoisySide[];
}

export async function measureNoisy(options: NoisyOptions, log: (line: string) => void): Promise<NoisyResult> {
  const sides: NoisySide[] = [];
  for (const fairness of [true, false]) {
    log(`noisy: fairness ${fairness ? 'on' : 'off'}`);
    const stack = await startNoisyStack(fairness);
    try {
      sides.push(await measureSide(stack, options));
    } finally {
      await stack.stop();
    }
  }
  return { options, sides };
}

async function measureSide(stack: NoisyStack, options: NoisyOptions): Promise<NoisySide> {
  await shortCall(stack, 60_000); // warms the worker and the gateway up
  const alone: number[] = [];
  for (let i = 0; i < options.calls; i++) alone.push((await shortCall(stack, 60_000)) ?? 60_000);
  await flood(stack, { ...options.flood, backlog: Math.min(options.flood.calls - 8, 100) });
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
    alone: distribution(alone),
    during: distribution(during.map((ms) => ms ?? options.capMs)),
    capped: during.filter((ms) => ms === undefined).length,
  };
}

export function noisySection(r: NoisyResult): string {
  const { flood: f, calls, capMs } = r.options;
  const rows = r.sides.flatMap((side) => {
    const name = `fairness ${side.fairness ? 'on' : 'off'}`;
    const capped =
      side.capped > 0
        ? ` (${side.capped} not done within ${capMs / 1000} s, counted as ${capMs / 1000} s)`
        : '';
    return [
      latencyRow(`bob alone, ${name}`, side.alone),
      latencyRow(`bob during the flood, ${name}${capped}`, side.during),
    ];
  });
  return [
    NOISY_HEADING,
    '',
    `A dev server of its own per side (\`matching.enableFairness=true\` or not; new tasks on one partition`,
    `of the queue either way), one mining worker (8 activity slots, one mining thread) and a gateway.`,
    `Bob's short call (difficulty ${SHORT_CALL.difficulty}, ${SHORT_CALL.blocks} block) is timed from its \`tools/call\` to its result:`,
    'alone, one at a time, then while alice floods: her',
    `${f.calls} calls (difficulty ${f.difficulty}, ${f.blocks} blocks each; one block of each run at a time, so the queue`,
    `holds a block of every run not being mined), bob's ${calls} calls one at a time. A call not done`,
    `within ${capMs / 1000} s counts as ${capMs / 1000} s; after two such calls in a row the side's other calls`,
    'are counted so without being sent (each would wait behind the same backlog).',
    '',
    table(LATENCY_HEADER, rows),
    '',
    table(
      ['during / alone', 'p50', 'p99'],
      r.sides.map((side) => ratioRow(`fairness ${side.fairness ? 'on' : 'off'}`, side.during, side.alone)),
    ),
  ].join('\n');
}
