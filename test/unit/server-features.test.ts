// The start check's rule, without Temporal: what each server release lacks of what the gateway
// uses, said in one line; a server that does not give its version is not judged by release.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missingFeatures } from '../../gateway/temporal/server-features.ts';

const capable = { upsertMemo: true };

test('1.29 and later lack nothing the API tells: 1.29.1 (CLI v1.5.1), 1.31, 1.32.2, 2.0', () => {
  for (const serverVersion of ['1.29.1', '1.30.6', '1.31.2', '1.32.2', 'v1.32.2', '2.0.0'])
    assert.equal(missingFeatures({ serverVersion, capabilities: capable }), undefined, serverVersion);
});

test('1.28 lacks fairness keys, in one line naming the dynamic config that turns them on', () => {
  const line = missingFeatures({ serverVersion: '1.28.3', capabilities: capable }) ?? '';
  assert.match(line, /^Temporal 1\.28\.3 lacks what the gateway uses: fairness keys are ignored/);
  assert.match(line, /1\.29\+ with matching\.enableFairness=true/);
  assert.doesNotMatch(line, /priority keys/);
  assert.doesNotMatch(line, /\n/);
});

test('before 1.28 priority keys are ignored too; a missing capability is said on the same line', () => {
  const line = missingFeatures({ serverVersion: '1.27.2', capabilities: { upsertMemo: false } }) ?? '';
  assert.match(
    line,
    /^Temporal 1\.27\.2 lacks what the gateway uses: priority keys are ignored.*; fairness keys/,
  );
  assert.match(line, /; runs cannot publish their progress in a memo \(upsertMemo\)$/);
});

test('no version (or not major.minor): only the capabilities are judged', () => {
  for (const serverVersion of [undefined, 'dev'])
    assert.equal(missingFeatures({ serverVersion, capabilities: capable }), undefined, String(serverVersion));
  assert.match(
    missingFeatures({ capabilities: {} }) ?? '',
    /^Temporal \(version not given\) lacks .*upsertMemo/,
  );
  assert.equal(missingFeatures({ serverVersion: '1.32.2' }), undefined);
});
