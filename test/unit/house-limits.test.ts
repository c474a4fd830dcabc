// scripts/house-limits.ts on small trees written to a temporary folder: each limit caught one past
// it and not at it, the error table's exception, and every product folder held to them.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { checkSource, checkTree, formatViolation, LIMITS, summarize } from '../../scripts/house-limits.ts';

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A tree of the given files (relative path → text) in a fresh temporary folder. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'house-limits-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A function declaration of exactly `lines` physical lines. */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`);
  return [`export function ${name}(): void {`, ...body, '}', ''].join('\n');
}

/** A file of exactly `lines` physical lines, none of them in a function. */
function fileOf(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `export const c${i} = ${i};\n`).join('');
}

const violationsOf = (root: string) => checkTree(root).flatMap((r) => r.violations);

describe('house limits', () => {
  test('a function of 61 lines is caught, one of 60 passes', () => {
    const root = tree({
      'gateway/long.ts': functionOf('tooLong', LIMITS.functionLines + 1),
      'gateway/fits.ts': functionOf('fits', LIMITS.functionLines),
    });
    const violations = violationsOf(root);
    assert.deepEqual(violations, [
      { path: 'gateway/long.ts', line: 1, what: 'function tooLong length', measured: 61, limit: 60 },
    ]);
    assert.deepEqual(violations.map(formatViolation), [
      'gateway/long.ts:1  function tooLong length  (61 / 60)',
    ]);
  });

  test('every kind of function is measured: methods, constructors, getters, arrows, expressions', () => {
    const inner = Array.from({ length: 59 }, (_, i) => `    void ${i};`).join('\n');
    const text = [
      'export class Box {',
      `  constructor() {\n${inner}\n  }`,
      `  get size(): number {\n${inner}\n    return 1;\n  }`,
      `  open(): void {\n${inner}\n  }`,
      '}',
      `export const arrow = () => {\n${inner}\n};`,
      `export const expression = function () {\n${inner}\n};`,
      `export const table = { handler() {\n${inner}\n} };`,
      '',
    ].join('\n');
    const report = checkSource('gateway/box.ts', text);
    assert.deepEqual(
      report.violations.filter((v) => v.what !== 'file length').map((v) => [v.what, v.measured]),
      [
        ['function Box.constructor length', 61],
        ['function get Box.size length', 62],
        ['function Box.open length', 61],
        ['function arrow length', 61],
        ['function expression length', 61],
        ['function handler length', 61],
      ],
    );
  });

  test('five parameters are caught, four pass; a destructured object and `this` are not counted apart', () => {
    const root = tree({
      'gateway/params.ts': [
        'export function five(a: number, b: number, c: number, d: number, e: number): void {}',
        'export function four(a: number, b: number, c: number, d: number): void {}',
        'export function one({ a, b, c, d, e }: Record<string, number>): void {}',
        'export function withThis(this: unknown, a: number, b: number, c: number, d: number): void {}',
        'export const arrow = (a: number, b: number, c: number, d: number, ...rest: number[]) => rest;',
        '',
      ].join('\n'),
    });
    assert.deepEqual(
      violationsOf(root).map((v) => formatViolation(v)),
      [
        'gateway/params.ts:1  function five parameters  (5 / 4)',
        'gateway/params.ts:5  function arrow parameters  (5 / 4)',
      ],
    );
  });

  test('a file of 401 lines is caught, one of 400 passes', () => {
    const root = tree({ 'gateway/http/long.ts': fileOf(401), 'gateway/http/fits.ts': fileOf(400) });
    assert.deepEqual(violationsOf(root), [
      { path: 'gateway/http/long.ts', line: 1, what: 'file length', measured: 401, limit: 400 },
    ]);
  });

  test('the error table may be long wherever it moves under gateway/, but not its functions', () => {
    const root = tree({
      'gateway/mcp/errors.ts': fileOf(500),
      'gateway/shared/errors.ts': `${fileOf(500)}${functionOf('hugeMapping', 61)}`,
      'gateway/mcp/errors-more.ts': fileOf(401),
    });
    assert.deepEqual(
      violationsOf(root).map((v) => formatViolation(v)),
      [
        'gateway/mcp/errors-more.ts:1  file length  (401 / 400)',
        'gateway/shared/errors.ts:501  function hugeMapping length  (61 / 60)',
      ],
    );
  });

  test('every product folder is held to the limits, sources only; the summary names the largest', () => {
    const root = tree({
      'gateway/main.ts': functionOf('main', 10),
      'worker/main.ts': fileOf(401),
      'launcher/start.ts': functionOf('start', 70),
      'gateway/node_modules/dep/index.ts': fileOf(500),
      'gateway/notes.md': fileOf(500),
      'test/long.test.ts': fileOf(500),
      'worker/errors.ts': fileOf(401),
    });
    const reports = checkTree(root);
    assert.deepEqual(
      reports.map((r) => r.path),
      ['gateway/main.ts', 'worker/errors.ts', 'worker/main.ts', 'launcher/start.ts'],
    );
    assert.deepEqual(
      reports.flatMap((r) => r.violations).map((v) => formatViolation(v)),
      [
        'worker/errors.ts:1  file length  (401 / 400)',
        'worker/main.ts:1  file length  (401 / 400)',
        'launcher/start.ts:1  function start length  (70 / 60)',
      ],
      'the error table may be long under gateway/ only',
    );
    assert.deepEqual(summarize(reports), [
      'files checked: 4',
      'largest file: 401 lines, worker/errors.ts',
      'largest function: 70 lines, start (launcher/start.ts:1)',
      'most parameters: 0, main (gateway/main.ts:1)',
    ]);
  });
});
