// Part 15: the limits side by side, on a stack of its own (its Temporal is killed at the end): a
// start under the running-task cap against one without (two compiled gateways on one parked queue,
// one call at a time, the sides in rotating order), then the dev server killed and how long a
// `tools/call` takes to answer: the first one after the kill, then once the gateway knows.
import { rpc } from '../test/support/mcp-http.ts';
import { eventually, startOwnTestTemporal } from '../test/support/temporal.ts';
import { createTask } from './overhead.ts';
import { LATENCY_HEADER, latencyRow, ratioRow, table } from './report-table.ts';
import { startGatewayProcess, startParkedWorker } from './stack.ts';
import { type Distribution, distribution, timed } from './stats.ts';

export const LIMITS_HEADING = '## 15. Limits: a start under the cap, a dead Temporal';
const QUEUE = 'bench-limits-parked';
/** A cap far above what the run reaches: every start takes a slot. */
const CAP = 10_000;
/** Calls timed with Temporal known down. */
const DOWN_CALLS = 5;

export interface LimitsResult {
  off: Distribution;
  on: Distribution;
  /** The first `tools/call` after the kill (ms), and its error reason. */
  firstDown: { ms: number; reason: string };
  /** The calls after it (ms), and their reasons. */
  down: { ms: number; reason: string }[];
}

export async function measureLimits(options: { nodeArgs: string[]; calls: number; warmup: number }) {
  const temporal = await startOwnTestTemporal();
  const stops: (() => Promise<unknown>)[] = [() => temporal.close()];
  try {
    const worker = await startParkedWorker(temporal.server.address, QUEUE);
    stops.unshift(() => worker.stop());
    const gateway = async (cap: number) => {
      const started = await startGatewayProcess({
        temporalAddress: temporal.server.address,
        taskQueue: QUEUE,
        waitBudgetMs: 0,
        nodeArgs: options.nodeArgs,
        env: { MCP_MAX_RUNNING_TASKS: String(cap) },
      });
      stops.unshift(() => started.stop());
      return started;
    };
    const sides = [
      { url: (await gateway(0)).url, samples: [] as number[] },
      { url: (await gateway(CAP)).url, samples: [] as number[] },
    ];
    for (let round = 0; round < options.warmup + options.calls; round++) {
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(round + k) % sides.length] as (typeof sides)[number];
        await timed(round >= options.warmup ? side.samples : [], () => createTask(side.url));
      }
    }
    const [off, on] = sides.map((side) => distribution(side.samples)) as [Distribution, Distribution];
    // The capped gateway, as deployed, sees Temporal die.
    const url = (sides[1] as (typeof sides)[number]).url;
    await temporal.server.stop();
    const firstDown = await downCall(url);
    await eventually(
      async () => ((await fetch(new URL('/readyz', url))).status === 503 ? true : undefined),
      30_000,
      '/readyz to say 503',
    );
    const down = [];
    for (let i = 0; i < DOWN_CALLS; i++) down.push(await downCall(url));
    return { off, on, firstDown, down } satisfies LimitsResult;
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}

/** One `tools/call` with Temporal down: how long its answer took, and its error reason. */
async function downCall(url: URL): Promise<{ ms: number; reason: string }> {
  const sent = performance.now();
  const answer = await rpc(url, 'tools/call', {
    name: 'start_mining',
    arguments: { difficulty: 8, blocks: 1 },
  });
  const reason = (answer.error?.data as { reason?: string } | undefined)?.reason ?? 'no error';
  return { ms: Math.round(performance.now() - sent), reason };
}

export function limitsSection(r: LimitsResult): string {
  const down = r.down.map((call) => call.ms).sort((a, b) => a - b);
  const reasons = [...new Set(r.down.map((call) => call.reason))].join(', ');
  return [
    LIMITS_HEADING,
    '',
    'Two compiled gateway processes on one parked queue (wait budget 0): one with',
    `\`MCP_MAX_RUNNING_TASKS=0\` (no cap), one with a cap of ${CAP.toLocaleString('en-US')}, so every start`,
    'takes a slot. One `tools/call` at a time, the sides in rotating order. Then the dev server is',
    `killed: the first \`tools/call\` after it, and ${DOWN_CALLS} once \`/readyz\` says 503 (call deadline 10 s).`,
    '',
    table(LATENCY_HEADER, [
      latencyRow('`tools/call` → task, no cap', r.off),
      latencyRow('`tools/call` → task, cap', r.on),
    ]),
    '',
    table(['ratio', 'p50', 'p99'], [ratioRow('`tools/call`, cap / no cap', r.on, r.off)]),
    '',
    table(
      ['Temporal down', 'answer', 'reason'],
      [
        ['first `tools/call` after the kill', `${r.firstDown.ms} ms`, r.firstDown.reason],
        [`\`tools/call\`, known down (${DOWN_CALLS}: min / max)`, `${down[0]} / ${down.at(-1)} ms`, reasons],
      ],
    ),
  ].join('\n');
}
