// Runs test files with Node's test runner around one shared Temporal dev server: started once,
// its address passed to every test file as TEST_TEMPORAL_ADDRESS (test/support/temporal.ts gives
// each file a namespace of its own on it, unless the file needs a server of its own), stopped at
// the end. The spec reporter prints; scripts/test-file-times.mjs keeps each file's time for
// `npm run test:slowest`. TEST_CONCURRENCY (default 1) is how many files run at once. Files named
// *.alone.test.ts time calls against the machine itself: they run after the rest, one at a time.
//   node --import tsx scripts/run-tests.ts test/unit/*.test.ts test/*.test.ts
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevServer } from '../launcher/dev-server.ts';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node --import tsx scripts/run-tests.ts <test files>');
  process.exit(2);
}
const concurrency = Number(process.env.TEST_CONCURRENCY || 1);

const started = Date.now();
const dataDir = mkdtempSync(join(tmpdir(), 'mcp-gw-shared-temporal-'));
const server = await DevServer.start({ dbFilename: join(dataDir, 'temporal.db') });
console.log(`shared Temporal dev server at ${server.address} (ready in ${Date.now() - started} ms)`);

const alone = files.filter((file) => file.endsWith('.alone.test.ts'));
const shared = files.filter((file) => !alone.includes(file));

/** Runs `batch` with Node's test runner, `at` files at once; resolves with its exit code. */
async function runFiles(batch: string[], at: number, env: NodeJS.ProcessEnv): Promise<number> {
  const runner = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${at}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/test-file-times.mjs',
      '--test-reporter-destination=stdout',
      ...batch,
    ],
    { stdio: 'inherit', env: { ...process.env, ...env, TEST_TEMPORAL_ADDRESS: server.address } },
  );
  const stopRunner = (signal: NodeJS.Signals) => runner.kill(signal);
  process.on('SIGINT', stopRunner);
  process.on('SIGTERM', stopRunner);
  const [code, signal] = (await once(runner, 'exit')) as [number | null, NodeJS.Signals | null];
  process.off('SIGINT', stopRunner);
  process.off('SIGTERM', stopRunner);
  return code ?? (signal ? 1 : 0);
}

let code = shared.length > 0 ? await runFiles(shared, concurrency, {}) : 0;
if (alone.length > 0) {
  // Their times join the first batch's in the times file.
  const aloneCode = await runFiles(alone, 1, shared.length > 0 ? { TEST_TIMES_MERGE: '1' } : {});
  code ||= aloneCode;
}
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
console.log(`${files.length} test files in ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exit(code);
