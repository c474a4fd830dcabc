// The walk of docs/development.md is held to the code: every gateway file it names for one request
// exists and is a file that request runs code in, as `npm run callpath` measures it (V8 coverage of
// the gateway's own entry on a real dev server and worker).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The walks of the development guide: the gateway files each one names, by the request it walks. */
function walks(): Map<string, string[]> {
  const text = readFileSync(`${ROOT}docs/development.md`, 'utf8');
  const found = new Map<string, string[]>();
  for (const section of text.split(/^## /m)) {
    const request = /^One `([^`]+)`, through the code/.exec(section)?.[1];
    if (!request) continue;
    found.set(request, [...new Set(section.match(/gateway\/[\w/.-]+\.ts/g) ?? [])]);
  }
  return found;
}

/** What `scripts/callpath.ts` prints: the gateway files each request ran code in. */
async function measuredPaths(): Promise<Map<string, string[]>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/callpath.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let report = '';
  child.stderr.on('data', (chunk: Buffer) => {
    report += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, report.slice(-2_000));
  const paths = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of report.split('\n')) {
    const heading = /^(\S.*):$/.exec(line);
    if (heading) {
      current = [];
      paths.set(heading[1] as string, current);
    } else if (/^ {2}gateway\//.test(line)) current?.push(line.trim());
  }
  return paths;
}

test('the walks of one tools/call and one tasks/get name only files those requests run code in', async () => {
  const named = walks();
  assert.deepEqual([...named.keys()].sort(), ['tasks/get', 'tools/call']);
  const measured = await measuredPaths();
  for (const [request, files] of named) {
    const path = measured.get(request);
    assert.ok(path && path.length > 0, `callpath measured no ${request}`);
    assert.ok(files.length >= 8, `the ${request} walk names ${files.length} files`);
    for (const file of files) {
      assert.ok(existsSync(`${ROOT}${file}`), `${file}, named in the ${request} walk, does not exist`);
      assert.ok(
        path.includes(file),
        `${file}, named in the ${request} walk, is not on its path: ${path.join(', ')}`,
      );
    }
  }
});
