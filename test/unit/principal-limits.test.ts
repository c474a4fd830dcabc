// The per-principal bounds and the fairness key, without Temporal: a second's worth of starts, then
// the rate, with the wait until the next one; waits held and released; each replica's share of both;
// a long principal's key hashed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { StartRateLimitError, WaitLimitError } from '../../gateway/temporal/errors.ts';
import { runPriority } from '../../gateway/temporal/fairness.ts';
import { replicaShare, StartRate, WaitCounts } from '../../gateway/temporal/principal-limits.ts';

test('starts per second: a burst of a second worth, then one every 1/rate s, per principal', () => {
  const rate = new StartRate(4);
  for (let i = 0; i < 4; i++) rate.take('alice', 1_000);
  assert.throws(
    () => rate.take('alice', 1_000),
    (err) => err instanceof StartRateLimitError && err.retryAfterMs === 250 && err.perSecond === 4,
  );
  rate.take('bob', 1_000);
  rate.take('alice', 1_250);
  assert.throws(() => rate.take('alice', 1_300), StartRateLimitError);
  new StartRate(0).take('alice');
});

test('waits per principal: refused at the bound, released once, per principal', () => {
  const waits = new WaitCounts(2);
  const first = waits.reserve('alice');
  waits.reserve('alice');
  assert.throws(
    () => waits.reserve('alice'),
    (err) => err instanceof WaitLimitError && err.limit === 2,
  );
  waits.reserve('bob');
  first();
  first();
  waits.reserve('alice');
  assert.throws(() => waits.reserve('alice'), WaitLimitError);
});

test('shared by replicas: each admits its share, and the refusal names the bound and the replicas', () => {
  // 10 starts a second over 2 replicas: 5 a second here, a burst of 5.
  const rate = new StartRate(10, 2);
  for (let i = 0; i < 5; i++) rate.take('alice', 1_000);
  assert.throws(
    () => rate.take('alice', 1_000),
    (err) =>
      err instanceof StartRateLimitError &&
      err.perSecond === 10 &&
      err.replicas === 2 &&
      err.retryAfterMs === 200,
  );
  // 5 waits over 2 replicas: 2 here (the shares never add up past the bound).
  const waits = new WaitCounts(5, 2);
  waits.reserve('alice');
  waits.reserve('alice');
  assert.throws(
    () => waits.reserve('alice'),
    (err) => err instanceof WaitLimitError && err.limit === 5 && err.replicas === 2,
  );
  assert.equal(replicaShare(0, 3), 0);
});

test('the fairness key is the principal, hashed past 64 bytes; weight and priority when given', () => {
  assert.deepEqual(runPriority('alice'), { fairnessKey: 'alice' });
  assert.deepEqual(runPriority('alice', new Map([['alice', 2]]), 1), {
    fairnessKey: 'alice',
    fairnessWeight: 2,
    priorityKey: 1,
  });
  const long = `https://issuer.example#${'s'.repeat(60)}`;
  assert.equal(runPriority(long).fairnessKey, createHash('sha256').update(long).digest('hex'));
});
