// `npx tsx bench/oauth.ts`: part 8 of the bench alone (tasks/get with an OAuth access token vs a
// static token), on a stack of its own: a Temporal dev server, a workflows-only worker, the test
// authorization server and the compiled gateway. Prints the table and puts the section (and its
// summary rows) into docs/benchmarks.md, leaving the rest of the report as the last full run wrote it.
// BENCH_QUICK=1: fewer calls, prints only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compiledGateway } from '../test/support/gateway-process.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { measureOAuthSideBySide } from './oauth-side-by-side.ts';
import { oauthSection, withOAuthSection } from './report.ts';
import { startParkedWorker } from './stack.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const QUEUE = 'bench-oauth-parked';
const calls = QUICK ? 60 : 300;
const warmup = QUICK ? 10 : 20;

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const temporal = await startOwnTestTemporal();
let result: Awaited<ReturnType<typeof measureOAuthSideBySide>>;
try {
  const nodeArgs = await compiledGateway();
  const worker = await startParkedWorker(temporal.server.address, QUEUE);
  try {
    log(`OAuth: tasks/get with an access token vs a static token, ${calls} calls per side after ${warmup}`);
    result = await measureOAuthSideBySide({
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

process.stdout.write(`\n${oauthSection(result)}\n`);
if (QUICK) log('quick run: docs/benchmarks.md left as it was');
else if (!existsSync(REPORT_PATH)) log(`${REPORT_PATH} is missing: run npm run bench first`);
else {
  writeFileSync(REPORT_PATH, withOAuthSection(readFileSync(REPORT_PATH, 'utf8'), result));
  log(`wrote the OAuth section into ${REPORT_PATH}`);
}
