// A reporter for Node's test runner (`--test-reporter=./scripts/test-file-times.mjs`): how long each
// test file took, start to end of its process, and whether it passed, written to
// .data/test-times.json (TEST_TIMES_FILE names another) when the run ends, added to the times already
// there under TEST_TIMES_MERGE=1 (a later batch of one run); `npm run test:slowest`
// prints the slowest. It prints nothing itself: the spec reporter beside it does. Plain JavaScript:
// the runner loads reporters before any --import hook applies on some Node.js lines.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const TEST_TIMES_FILE = process.env.TEST_TIMES_FILE || '.data/test-times.json';

/** @param {AsyncIterable<{ type: string, data?: any }>} source */
export default async function* fileTimes(source) {
  const times = new Map();
  if (process.env.TEST_TIMES_MERGE === '1' && existsSync(TEST_TIMES_FILE))
    for (const earlier of JSON.parse(readFileSync(TEST_TIMES_FILE, 'utf8')).files ?? [])
      times.set(earlier.file, earlier);
  for await (const event of source) {
    const { file, name, nesting, details } = event.data ?? {};
    // Each file runs in a process of its own, reported as a top-level test named by its path.
    if (event.type !== 'test:complete' || nesting !== 0 || !file || !name) continue;
    if (resolve(name) !== resolve(file)) continue;
    const path = relative(process.cwd(), file);
    times.set(path, {
      file: path,
      ms: Math.round(details?.duration_ms ?? 0),
      passed: details?.passed !== false,
    });
  }
  const files = [...times.values()].sort((a, b) => b.ms - a.ms);
  mkdirSync(dirname(TEST_TIMES_FILE), { recursive: true });
  writeFileSync(TEST_TIMES_FILE, `${JSON.stringify({ at: new Date().toISOString(), files }, null, 2)}\n`);
  yield '';
}
