// docs/development.md's layout is the house as it is: every source file of gateway/ is listed in it,
// in its folder, and nothing listed is gone.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every .ts file under `dir`, as a path from the repository root. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The gateway paths the layout block lists: each line whose first word is a file (`x.ts`) or a
 * folder (`x/`), nested by its indentation (two spaces a level); other lines continue a description.
 */
function listedPaths(markdown: string): string[] {
  const start = markdown.indexOf('## Layout');
  const block = /```\n([\s\S]*?)```/.exec(markdown.slice(start))?.[1] ?? '';
  const folders: string[] = [];
  const listed: string[] = [];
  for (const line of block.split('\n')) {
    const match = /^( *)([\w.-]+(?:\/|\.ts))(?:\s|$)/.exec(line);
    if (!match) continue;
    const level = (match[1] as string).length / 2;
    if (!Number.isInteger(level) || level > folders.length) continue; // a description's continuation
    folders.length = level;
    const name = match[2] as string;
    if (name.endsWith('/')) folders.push(name.slice(0, -1));
    else listed.push([...folders, name].join('/'));
  }
  return listed.filter((path) => path.startsWith('gateway/'));
}

test('the layout of docs/development.md lists every source file of gateway/, and only those', () => {
  const markdown = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
  const listed = listedPaths(markdown).sort();
  const actual = sources('gateway')
    .map((path) => relative(ROOT, join(ROOT, path)))
    .sort();
  assert.deepEqual(
    actual.filter((path) => !listed.includes(path)),
    [],
    'files of gateway/ the layout leaves out',
  );
  assert.deepEqual(
    listed.filter((path) => !actual.includes(path)),
    [],
    'files the layout lists that are not there',
  );
});

test('the reader finds a file in its folder, and not a word of a description', () => {
  const markdown = [
    '## Layout',
    '```',
    'gateway/     the process',
    '  main.ts        the entry',
    '  http/          admit it',
    '    route.ts         the route, which',
    '                     spans two lines.ts',
    '  app.ts         the app',
    'docs/        these',
    '```',
  ].join('\n');
  assert.deepEqual(listedPaths(markdown), ['gateway/main.ts', 'gateway/http/route.ts', 'gateway/app.ts']);
});
