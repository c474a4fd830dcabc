// `npx tsx bench/running-cap.ts` (`npm run bench:cap`): what the running-task cap costs a start, off
// and on side by side, on a stack of its own: a Temporal dev server, a workflows-only worker and two
// compiled gateways, one without a cap and one with a cap far above what the run reaches (so every
// start takes a slot: the run starts under a free slot's workflow id). One call at a
// time, the sides in rotating order on every round. Prints the table and puts the section into
// docs/benchmarks.md, leaving the rest as the last full run wrote it. BENCH_QUICK=1: prints only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compiledGateway } from '../test/support/gateway-process.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { createTask } from './overhead.ts';
import { LATENCY_HEADER, latencyRow, ratioRow, table } from './report-table.ts';
import { startGatewayProcess, startParkedWorker } from './stack.ts';
import { type Distribution, distribution, timed } from './stats.ts';
import { withSection } from './tracing-report.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const QUEUE = 'bench-cap-parked';
const HEADING = '## 10. The running-task cap';
const CAP = 10_000;
const calls = QUICK ? 60 : 300;
const warmup = QUICK ? 10 : 20;

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

function capSection(off: Distribution, on: Distribution): string {
  return [
    HEADING,
    '',
    'Two compiled gateway processes on one parked queue (wait budget 0): one with',
    `\`MCP_MAX_RUNNING_TASKS=0\` (no cap), one with a cap of ${CAP.toLocaleString('en-US')}, so every start takes a`,
    "slot: the run itself starts under a free slot's workflow id (no other run, no other call).",
    'One `tools/call` at a time (each answers a task handle), the sides in rotating order on every round.',
    '',
    table(LATENCY_HEADER, [
      latencyRow('`tools/call` → task, no cap', off),
      latencyRow('`tools/call` → task, cap', on),
    ]),
    '',
    table(['ratio', 'p50', 'p99'], [ratioRow('`tools/call`, cap / no cap', on, off)]),
    '',
    'Near the cap a start tries up to six slots at random (a start each, refused at once when held),',
    'then describes every slot and tries the free ones; once a principal is found full, its other',
    'starts on that gateway are refused for a second without a Temporal call.',
  ].join('\n');
}

const temporal = await startOwnTestTemporal();
let off: Distribution;
let on: Distribution;
try {
  const nodeArgs = await compiledGateway();
  const worker = await startParkedWorker(temporal.server.address, QUEUE);
  const gateways: { stop(): Promise<unknown> }[] = [];
  try {
    const gateway = async (cap: number) => {
      const started = await startGatewayProcess({
        temporalAddress: temporal.server.address,
        taskQueue: QUEUE,
        waitBudgetMs: 0,
        nodeArgs,
        env: { MCP_MAX_RUNNING_TASKS: String(cap) },
      });
      gateways.push(started);
      return started;
    };
    const sides = [
      { url: (await gateway(0)).url, samples: [] as number[] },
      { url: (await gateway(CAP)).url, samples: [] as number[] },
    ];
    log(`running-task cap: off vs on, tools/call, ${calls} calls per side after ${warmup}`);
    for (let round = 0; round < warmup + calls; round++) {
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(round + k) % sides.length] as (typeof sides)[number];
        await timed(round >= warmup ? side.samples : [], () => createTask(side.url));
      }
    }
    off = distribution((sides[0] as (typeof sides)[number]).samples);
    on = distribution((sides[1] as (typeof sides)[number]).samples);
  } finally {
    for (const g of gateways) await g.stop().catch(() => {});
    await worker.stop();
  }
} finally {
  await temporal.close();
}

const section = capSection(off, on);
process.stdout.write(`\n${section}\n`);
if (QUICK) log('quick run: docs/benchmarks.md left as it was');
else if (!existsSync(REPORT_PATH)) log(`${REPORT_PATH} is missing: run npm run bench first`);
else {
  writeFileSync(REPORT_PATH, withSection(readFileSync(REPORT_PATH, 'utf8'), HEADING, section));
  log(`wrote the running-task cap section into ${REPORT_PATH}`);
}
