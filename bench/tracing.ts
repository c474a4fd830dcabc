// `npx tsx bench/tracing.ts` (`npm run bench:tracing`): part 9 of the bench alone, tracing off vs on,
// on a stack of its own: a Temporal dev server, a workflows-only worker, a Jaeger and two compiled
// gateways. Prints the table and puts the section into docs/benchmarks.md, leaving the rest of the
// report as the last full run wrote it. BENCH_QUICK=1: fewer calls, prints only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compiledGateway } from '../test/support/gateway-process.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { startParkedWorker } from './stack.ts';
import { tracingSection, withTracingSection } from './tracing-report.ts';
import { measureTracingSideBySide, type TracingSideResult } from './tracing-side-by-side.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const QUEUE = 'bench-tracing-parked';
const calls = QUICK ? 60 : 300;
const warmup = QUICK ? 10 : 20;

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const temporal = await startOwnTestTemporal();
let result: TracingSideResult;
try {
  const nodeArgs = await compiledGateway();
  const worker = await startParkedWorker(temporal.server.address, QUEUE);
  try {
    log(`tracing: off vs on, tools/call and tasks/get, ${calls} calls per side after ${warmup}`);
    result = await measureTracingSideBySide({
      temporalAddress: temporal.server.address,
      taskQueue: QUEUE,
      nodeArgs,
      calls,
      warmup,
    });
  } finally {
    await worker.stop();
  }
} finally {
  await temporal.close();
}

process.stdout.write(`\n${tracingSection(result)}\n`);
if (QUICK) log('quick run: docs/benchmarks.md left as it was');
else if (!existsSync(REPORT_PATH)) log(`${REPORT_PATH} is missing: run npm run bench first`);
else {
  writeFileSync(REPORT_PATH, withTracingSection(readFileSync(REPORT_PATH, 'utf8'), result));
  log(`wrote the tracing section into ${REPORT_PATH}`);
}
