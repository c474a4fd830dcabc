// Task ids read back as made, whatever the tool's id prefix holds: dots in every position, in each
// of the three forms (a plain key, a key with the run a start under the cap got, an earlier slotted
// key); ids issued before read as they did; the two prefix endings whose plain ids would read as
// another form are refused before any id is made of them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  isOwnedBy,
  keyedTaskId,
  newTaskId,
  parseTaskId,
  prefixFault,
  runTaskId,
  slotTaskId,
} from '../../gateway/temporal/task-ids.ts';

const SECRET = Buffer.from('compat-secret-0123456789abcdef0123456789');
/** Ids of random bodies per prefix: a plain id's tail is valid base64url of a run part about 1 time in 4. */
const TRIALS = 48;

/** `name` with a `.` put in, and swapped in, at every position; and some with several. */
function dotted(name: string): string[] {
  const inserted = Array.from({ length: name.length + 1 }, (_, i) => `${name.slice(0, i)}.${name.slice(i)}`);
  const swapped = Array.from({ length: name.length }, (_, i) => `${name.slice(0, i)}.${name.slice(i + 1)}`);
  return [...inserted, ...swapped];
}

const PREFIXES = [
  ...dotted('build_v1'),
  ...dotted('get-report'),
  'build.v1',
  'a.b.c.d',
  'x.',
  'x..',
  '...',
  'mine',
  'a'.repeat(30) + '.'.repeat(4) + 'b'.repeat(30),
  // Near the refused endings, and not them: one key character short, three after the dot, nothing
  // before the dash, a `~` with one character after it, nothing before the `~`.
  `x-${'A'.repeat(31)}.v1`,
  `x-${'A'.repeat(32)}.v12`,
  `-${'A'.repeat(32)}.v1`,
  'a~b',
  '~bc',
];

/** What an id parsed to, in the terms it was made of. */
function readBack(id: string) {
  const parsed = parseTaskId(id);
  return parsed && { prefix: parsed.prefix, key: parsed.key, slot: parsed.slot, runId: parsed.run?.runId };
}

describe('task ids read back as made', () => {
  test(`${PREFIXES.length} prefixes, dots in every position, ${TRIALS} ids each in every form`, () => {
    for (const prefix of PREFIXES) {
      assert.equal(prefixFault(prefix), undefined, prefix);
      for (let trial = 0; trial < TRIALS; trial += 1) {
        const key = newTaskId(SECRET, 'alice', prefix);
        assert.ok(key.startsWith(`${prefix}-`));
        assert.deepEqual(readBack(key), { prefix, key, slot: undefined, runId: undefined }, key);
        assert.ok(isOwnedBy(SECRET, 'alice', key), key);
        assert.ok(!isOwnedBy(SECRET, 'bob', key), key);
        const runId = randomUUID();
        const withRun = runTaskId(SECRET, key, { slot: trial, runId });
        assert.deepEqual(readBack(withRun), { prefix, key, slot: trial, runId }, withRun);
        assert.ok(isOwnedBy(SECRET, 'alice', withRun), withRun);
        const slotted = slotTaskId(SECRET, 'alice', key, 1000 + trial);
        assert.deepEqual(readBack(slotted), { prefix, key: slotted, slot: 1000 + trial, runId: undefined });
        assert.ok(isOwnedBy(SECRET, 'alice', slotted), slotted);
        const keyed = keyedTaskId(SECRET, 'alice', { name: prefix, idPrefix: prefix }, `k${trial}`);
        assert.equal(readBack(keyed)?.prefix, prefix, keyed);
        assert.ok(isOwnedBy(SECRET, 'alice', keyed), keyed);
      }
    }
  });

  test('ids issued before this reading (keyed for alice, key "k1") read as they did, and a plain build.v1 id now reads', () => {
    const runId = '0192f3a4-5b6c-7d8e-9fa0-b1c2d3e4f5a6';
    // Made by the gateway before a `.` in a prefix was read: the plain ids of build.v1 and
    // get-report.v2 did not parse then; every other one did, as it reads here.
    const issued: [string, string, string, string][] = [
      [
        'mine',
        'mine-PUH3Nc7qtJuUM7RMZhkBuzT7odwWamS4',
        'mine-PUH3Nc7qtJuUM7RMZhkBuzT7odwWamS4.AAcBkvOkW2x9jp-gscLT5PWm5Lg2zKLGqSs',
        'mine~PUH3Nc7qtJuUM7RMZhkBuwEsHCGJLd0K5Gw',
      ],
      [
        'build.v1',
        'build.v1-k_oCN_XmmFqkn5V2wRcjhDletJQVxFTP',
        'build.v1-k_oCN_XmmFqkn5V2wRcjhDletJQVxFTP.AAcBkvOkW2x9jp-gscLT5PWmom1s9GnN1hk',
        'build.v1~k_oCN_XmmFqkn5V2wRcjhAEsNXDmlzQ8oE4',
      ],
      [
        'a.b.c.d',
        'a.b.c.d-JgcsUA8e96oFfQnCbKeH2i8JAPA4rOOn',
        'a.b.c.d-JgcsUA8e96oFfQnCbKeH2i8JAPA4rOOn.AAcBkvOkW2x9jp-gscLT5PWmiLlwpsbBins',
        'a.b.c.d~JgcsUA8e96oFfQnCbKeH2gEsPy6hJ-qnCVA',
      ],
      [
        'get-report.v2',
        'get-report.v2-a1CnE1S9MO5qyGP597HKqpO1Lo7Mcd_q',
        'get-report.v2-a1CnE1S9MO5qyGP597HKqpO1Lo7Mcd_q.AAcBkvOkW2x9jp-gscLT5PWmQLpdfgB1MrM',
        'get-report.v2~a1CnE1S9MO5qyGP597HKqgEsFeZUkOvlmo0',
      ],
    ];
    for (const [prefix, key, withRun, slotted] of issued) {
      assert.deepEqual(readBack(key), { prefix, key, slot: undefined, runId: undefined });
      assert.deepEqual(readBack(withRun), { prefix, key, slot: 7, runId });
      assert.deepEqual(readBack(slotted), { prefix, key: slotted, slot: 300, runId: undefined });
      for (const id of [key, withRun, slotted]) {
        assert.ok(isOwnedBy(SECRET, 'alice', id), id);
        assert.ok(!isOwnedBy(SECRET, 'bob', id), id);
      }
    }
  });
});

describe('a prefix whose plain ids would read as another form', () => {
  const key = 'A'.repeat(32);
  test('a whole key, "." and two characters at its end: its ids read as a run of the shorter prefix', () => {
    const prefix = `x-${key}.v1`;
    // The text of a plain id under it is the text of an id under "x" with a run part.
    assert.equal(readBack(`${prefix}-${key}`)?.prefix, 'x');
    assert.match(prefixFault(prefix) ?? '', /read as ids under the prefix "x" naming a run/);
    const refused = /^Error: task ids cannot be made under the prefix "x-A{32}\.v1": /;
    assert.throws(() => newTaskId(SECRET, 'alice', prefix), refused);
    assert.throws(() => keyedTaskId(SECRET, 'alice', { name: 'build', idPrefix: prefix }, 'k'), refused);
  });

  test('a "~" and two characters at its end: its ids read as slotted ids of the shorter prefix', () => {
    assert.equal(readBack(`ab~cd-${key}`)?.prefix, 'ab');
    assert.match(prefixFault('ab~cd') ?? '', /read as slotted ids/);
    assert.throws(() => newTaskId(SECRET, 'alice', 'ab~cd'), /prefix "ab~cd"/);
  });

  test('an empty prefix', () => {
    assert.equal(readBack(`-${key}`), undefined);
    assert.throws(() => newTaskId(SECRET, 'alice', ''), /prefix "": it is empty/);
  });
});
