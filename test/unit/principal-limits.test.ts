// The per-principal bounds and the fairness key, without Temporal: a second's worth of starts, then
// the rate, with the wait until the next one; waits held and released; each gateway's share of both as the fleet grows and shrinks;
// a long principal's key hashed; the line a server without fairness is told with.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { StartRateLimitError, WaitLimitError } from '../../gateway/temporal/errors.ts';
import { runPriority } from '../../gateway/temporal/fairness.ts';
import { fleetFromPollers } from '../../gateway/temporal/fleet.ts';
import { gatewayShare, StartRate, WaitCounts } from '../../gateway/temporal/principal-limits.ts';

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

test('shared by the fleet: each gateway admits its share of the count read now, and the refusal names both', () => {
  const fleet = { gateways: 2 };
  // 10 starts a second over 2 gateways: 5 a second here, a burst of 5.
  const rate = new StartRate(10, fleet);
  for (let i = 0; i < 5; i++) rate.take('alice', 1_000);
  assert.throws(
    () => rate.take('alice', 1_000),
    (err) =>
      err instanceof StartRateLimitError &&
      err.perSecond === 10 &&
      err.gateways === 2 &&
      err.retryAfterMs === 200,
  );
  // 5 waits over 2 gateways: 2 here (the shares never add up past the bound).
  const waits = new WaitCounts(5, fleet);
  waits.reserve('alice');
  waits.reserve('alice');
  assert.throws(
    () => waits.reserve('alice'),
    (err) => err instanceof WaitLimitError && err.limit === 5 && err.gateways === 2,
  );
  // The other gateway has gone: this one admits the whole bound, at once.
  fleet.gateways = 1;
  waits.reserve('alice');
  waits.reserve('alice');
  waits.reserve('alice');
  assert.throws(() => waits.reserve('alice'), WaitLimitError);
  for (let i = 0; i < 10; i++) rate.take('bob', 2_000);
  assert.throws(() => rate.take('bob', 2_000), StartRateLimitError);
  assert.equal(gatewayShare(0, fleet), 0);
});

test('a fleet larger than a bound: each gateway admits one, and one start a 1/share seconds', () => {
  const fleet = { gateways: 4 };
  assert.equal(gatewayShare(3, fleet), 1);
  // 2 starts a second over 4 gateways: one here every 2 s.
  const rate = new StartRate(2, fleet);
  rate.take('alice', 1_000);
  assert.throws(
    () => rate.take('alice', 1_000),
    (err) => err instanceof StartRateLimitError && err.retryAfterMs === 2_000,
  );
  rate.take('alice', 3_000);
});

test("the fleet from Temporal's pollers: those within 5 s of the newest poll, this gateway always, never 0", () => {
  const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
  const pollers = [
    { identity: 'a', lastAccessTime: at(100_000) },
    { identity: 'b', lastAccessTime: at(96_500) },
    { identity: 'gone', lastAccessTime: at(94_000) },
  ];
  assert.equal(fleetFromPollers(pollers, 'a'), 2);
  // Not listed yet (its first poll is under way): counted all the same.
  assert.equal(fleetFromPollers(pollers, 'new'), 3);
  assert.equal(fleetFromPollers([], 'a'), 1);
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
