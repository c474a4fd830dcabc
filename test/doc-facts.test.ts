// Facts the docs state, held to their one source: the Node.js lines (package.json `engines`), the
// conformance figures (docs/conformance-results.json, written by test/conformance.test.ts's last
// run), the task id forms (gateway/temporal/task-ids.ts); and the README stays a short entry
// point with each journey one link away. No Temporal, no network.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { taskIdPrefix, taskSlot } from '../gateway/temporal/task-ids.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : [])),
];
/** Markdown joins sentences across line breaks: a phrase may wrap. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

/** The Node.js major lines an `engines` range allows, by the lower bound of each alternative. */
function nodeLines(range: string): number[] {
  return range.split('||').map((alternative) => {
    const major = /^\s*(?:\^|>=|~)?(\d+)/.exec(alternative)?.[1];
    assert.ok(major, `engines.node: cannot read "${alternative}"`);
    return Number(major);
  });
}

test('the Node.js lines the docs state are those package.json engines allows', () => {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const lines = nodeLines(engines);
  const phrase = `Node.js ${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}`;
  for (const doc of ['README.md', 'docs/deployment.md'])
    assert.ok(flat(read(doc)).includes(phrase), `${doc} says "${phrase}"`);
  // Any "Node.js A or B" / "Node.js A and B" / "(A or B, the project's lines)" names the same lines.
  for (const doc of DOCS) {
    for (const match of flat(read(doc)).matchAll(/Node(?:\.js)? (\d+)(?:, \d+)* (?:or|and) (\d+)\b(?!\.)/g)) {
      const stated = match[0].match(/\d+/g)?.map(Number);
      assert.deepEqual(stated, lines, `${doc}: "${match[0]}" (engines: ${engines})`);
    }
    for (const match of flat(read(doc)).matchAll(/runs on Node(?:\.js)? (\d+)\b/g))
      assert.ok(lines.includes(Number(match[1])), `${doc}: "${match[0]}" (engines: ${engines})`);
  }
});

test('the conformance figures are those of the last run, in the README and docs/conformance.md', () => {
  const run = JSON.parse(read('docs/conformance-results.json')) as {
    revision: string;
    date: string;
    scenarios: { total: number; passed: number; failed: number };
    checks: { passed: number; failed: number; warnings: number };
  };
  const { scenarios, checks } = run;
  assert.equal(scenarios.passed + scenarios.failed, scenarios.total);
  const readme = flat(read('README.md'));
  assert.ok(
    readme.includes(
      `${scenarios.passed} of ${scenarios.total} scenarios and ${checks.passed} checks; the other ${scenarios.failed}`,
    ),
    `README.md: "${scenarios.passed} of ${scenarios.total} scenarios and ${checks.passed} checks; the other ${scenarios.failed} …"`,
  );
  const page = flat(read('docs/conformance.md'));
  for (const expected of [
    `| scenarios (${scenarios.total}) | ${scenarios.passed} | ${scenarios.failed} | |`,
    `| checks | ${checks.passed} | ${checks.failed} | ${checks.warnings} |`,
    `conformance ${run.revision}: ${scenarios.total} scenarios, ${scenarios.passed} passed, ${scenarios.failed} failed; checks: ${checks.passed} passed`,
    `The ${scenarios.failed} failing scenarios`,
  ])
    assert.ok(
      page.replace(/ +\|/g, ' |').replace(/\| -+/g, '|').includes(expected),
      `docs/conformance.md: "${expected}"`,
    );
});

test('every task id the docs show has the form the gateway makes', () => {
  // A concrete id: a prefix, a dash and 32 base64url characters, and under the cap `.` and 35 more.
  const ids = DOCS.flatMap((doc) =>
    [...read(doc).matchAll(/\b[a-z][\w]*[-~][\w-]{32}(?:\.[\w-]{35})?(?![\w-])/g)]
      .map((m) => ({ doc, id: m[0] }))
      .filter(({ id }) => /^(mine|start_\w+|report|test_\w+)[-~]/.test(id)),
  );
  assert.ok(ids.length >= 3, 'the docs show task ids');
  const wrong = ids.filter(
    ({ id }) => taskIdPrefix(id) === undefined || (id.includes('.') && taskSlot(id) === undefined),
  );
  assert.deepEqual(wrong, [], 'ids the gateway would not make');
  assert.deepEqual(
    ids.filter(({ id }) => /^[\w]+~/.test(id)),
    [],
    'ids of the earlier `~` form',
  );
});

test('the README is short, and each journey is one link away', () => {
  const readme = read('README.md');
  assert.ok(readme.split('\n').length <= 250, `README.md has ${readme.split('\n').length} lines`);
  for (const link of [
    'docs/deployment.md#one-machine-npm-start', // try it
    'docs/clients.md#connecting', // connect an agent
    'docs/catalog.md#a-python-worker-step-by-step', // add a workflow
    'docs/deployment.md#a-worker-of-your-own',
    'docs/deployment.md#temporal-cloud-or-a-cluster-of-your-own', // deploy
    'docs/operations.md#from-a-task-id-to-its-run', // operate
    'docs/development.md#what-npm-test-costs',
  ])
    assert.ok(readme.includes(`](${link})`), `README.md links ${link}`);
});
