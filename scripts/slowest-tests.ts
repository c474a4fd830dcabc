// `npm run test:slowest [count]`: the slowest test files of the last run (`npm test` or
// `npm run test:unit`), from the times scripts/test-file-times.mjs wrote, with their share of the total.
import { readFileSync } from 'node:fs';

interface FileTime {
  file: string;
  ms: number;
  passed: boolean;
}

/** Where scripts/test-file-times.mjs writes them. */
const TEST_TIMES_FILE = process.env.TEST_TIMES_FILE || '.data/test-times.json';

const count = Number(process.argv[2] ?? 10);
let run: { at: string; files: FileTime[] };
try {
  run = JSON.parse(readFileSync(TEST_TIMES_FILE, 'utf8'));
} catch {
  console.error(`no test times in ${TEST_TIMES_FILE}: run npm test (or npm run test:unit) first`);
  process.exit(1);
}
const total = run.files.reduce((sum, f) => sum + f.ms, 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(
  `the ${Math.min(count, run.files.length)} slowest of ${run.files.length} test files (run of ${run.at}):`,
);
for (const f of run.files.slice(0, count)) {
  const share = total ? `${((100 * f.ms) / total).toFixed(0)}%` : '';
  console.log(`${seconds(f.ms).padStart(9)} ${share.padStart(4)}  ${f.file}${f.passed ? '' : '  (failed)'}`);
}
console.log(`${seconds(total).padStart(9)}       every file, one after another`);
