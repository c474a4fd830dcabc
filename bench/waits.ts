// `npx tsx bench/waits.ts` (`npm run bench:waits`): the waits part of `npm run bench` on a stack of
// its own (a Temporal dev server, the mining worker, a compiled gateway). Prints the section and
// puts it into docs/benchmarks.md, leaving the rest as the last full run wrote it.
// BENCH_QUICK=1: shorter, prints only. BENCH_WAITS_BEFORE=<a checkout of an earlier commit, its
// node_modules in place>: that checkout's gateway is measured first, side by side, named in the
// tables by BENCH_WAITS_BEFORE_LABEL (default: its path).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GATEWAY_NODE_FLAGS } from '../gateway/runtime-flags.ts';
import { compiledGateway } from '../test/support/gateway-process.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { measureWaits, WAITS_HEADING, type WaitsResult, waitsSection } from './idle-waits.ts';
import { startGatewayProcess, startMiningWorker } from './stack.ts';
import { withSection } from './tracing-report.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const BEFORE = process.env.BENCH_WAITS_BEFORE;
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const QUEUE = 'bench-waits';
const WAITS_SETTINGS = { watched: QUICK ? 5 : 10, idleMs: QUICK ? 25_000 : 45_000, rounds: QUICK ? 10 : 30 };

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const temporal = await startOwnTestTemporal();
let result: WaitsResult;
let before: { label: string; result: WaitsResult } | undefined;
try {
  const worker = await startMiningWorker(temporal.server.address, QUEUE, temporal.dataDir);
  try {
    const measure = async (nodeArgs: string[]) => {
      const gateway = await startGatewayProcess({
        temporalAddress: temporal.server.address,
        taskQueue: QUEUE,
        waitBudgetMs: 0,
        nodeArgs,
      });
      try {
        return await measureWaits({ url: gateway.url, client: temporal.client, ...WAITS_SETTINGS });
      } finally {
        await gateway.stop();
      }
    };
    if (BEFORE) {
      log(`waits: the gateway of ${BEFORE} first`);
      const nodeArgs = [...GATEWAY_NODE_FLAGS, '--import', 'tsx', join(BEFORE, 'gateway/main.ts')];
      const label = `before (${process.env.BENCH_WAITS_BEFORE_LABEL ?? BEFORE})`;
      before = { label, result: await measure(nodeArgs) };
    }
    log(
      `waits: ${WAITS_SETTINGS.watched} watched tasks over ${WAITS_SETTINGS.idleMs} ms, ${WAITS_SETTINGS.rounds} input rounds`,
    );
    result = await measure(await compiledGateway());
  } finally {
    await worker.stop();
  }
} finally {
  await temporal.close();
}

const section = waitsSection(result, before);
process.stdout.write(`\n${section}\n`);
if (QUICK) log('quick run: docs/benchmarks.md left as it was');
else if (!existsSync(REPORT_PATH)) log(`${REPORT_PATH} is missing: run npm run bench first`);
else {
  writeFileSync(REPORT_PATH, withSection(readFileSync(REPORT_PATH, 'utf8'), WAITS_HEADING, section));
  log(`wrote the waits section into ${REPORT_PATH}`);
}
