// The OAuth part of the bench report: its summary rows and section, and how the OAuth step run on
// its own (bench/oauth.ts) puts them into the last full report, replacing earlier ones, numbered in
// order with the others and with a Run line of its own (the report's header names another run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OAuthSideResult } from '../../bench/oauth-side-by-side.ts';
import { withOAuthSection } from '../../bench/report.ts';
import { distribution } from '../../bench/stats.ts';

const result = (oauthMs: number): OAuthSideResult => ({
  staticGet: distribution([10, 10, 10, 20]),
  oauthGet: distribution([oauthMs, oauthMs, oauthMs, 20]),
  freshTokenGet: distribution([11, 11, 11, 21]),
  token: 'ES256 JWT',
});

const REPORT = [
  '# Benchmarks',
  '',
  '## Summary',
  '',
  '| measure | result | target |  |',
  '| --- | --- | --- | --- |',
  '| tools/call vs start, p50 | 1.10x | ≤ 1.25x | met |',
  '',
  '## 1. Gateway overhead',
  '',
  'text',
  '',
  '## 6. Load',
  '',
  'load table',
  '',
].join('\n');

test('the step alone: summary rows after the summary table, the section at the end; a rerun replaces both', () => {
  const once = withOAuthSection(REPORT, result(10));
  const lines = once.split('\n');
  const row = lines.indexOf('| tools/call vs start, p50 | 1.10x | ≤ 1.25x | met |');
  assert.match(
    lines[row + 1] ?? '',
    /^\| tasks\/get, OAuth access token vs static token, p50 \| 1\.00x \| ≤ 1\.05x \| met \|$/,
  );
  assert.match(lines[row + 2] ?? '', /, p99 \| 1\.00x \|/);
  assert.match(lines[row + 3] ?? '', /a token not seen before on every call \| 1\.10x \| — \| context \|$/);
  assert.equal(lines[row + 4], '');
  assert.deepEqual(once.match(/^## .*$/gm), [
    '## Summary',
    '## 1. Gateway overhead',
    '## 2. Load',
    '## 3. OAuth access token vs static token',
  ]);
  assert.match(
    once,
    /^## 3\. OAuth access token vs static token\n\nRun: \d{4}-.*; written by a run of this part alone\n/m,
  );
  assert.ok(once.endsWith('|\n'));

  const twice = withOAuthSection(once, result(12));
  assert.equal(twice.split('OAuth access token vs static token\n').length, 2, 'one section');
  assert.equal(twice.match(/^Run: /gm)?.length, 1, 'one Run line');
  assert.equal(twice.match(/OAuth access token vs static token, p50 \|/g)?.length, 1, 'one row per measure');
  assert.match(twice, /, p50 \| 1\.20x \| ≤ 1\.05x \| \*\*missed\*\* \|/);
  assert.ok(twice.includes('load table'));
});
