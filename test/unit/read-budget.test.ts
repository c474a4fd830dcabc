// The artifact read budget: reads at once, per principal and bytes in flight each refuse past their
// cap at once (never a queue), name the cap and a retry hint, and give everything back after.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadBudget, type ReadRefusal } from '../../gateway/mcp/read-budget.ts';

class Refused extends Error {
  constructor(readonly refusal: ReadRefusal) {
    super(refusal.limit);
  }
}

test('each cap refuses past it at once, and a finished or failed read gives its share back', async () => {
  const budget = new ReadBudget({ maxReads: 3, maxReadsPerPrincipal: 2, maxBytesInFlight: 100 });
  const refuse = (refusal: ReadRefusal) => new Refused(refusal);
  const gates: (() => void)[] = [];
  const hold = (principal: string, bytes: number) =>
    budget.within(
      { principal, bytes },
      refuse,
      () => new Promise<string>((done) => gates.push(() => done(principal))),
    );
  const reasonOf = (read: Promise<unknown>) =>
    read.then(
      () => 'served',
      (err: Refused) => `${err.refusal.limit}:${err.refusal.retryAfterMs > 0}`,
    );
  const a1 = hold('alice', 40);
  const a2 = hold('alice', 10);
  assert.equal(await reasonOf(hold('alice', 1)), 'principal:true');
  assert.equal(await reasonOf(hold('bob', 51)), 'bytes:true');
  const b1 = hold('bob', 50);
  assert.equal(await reasonOf(hold('carol', 0)), 'reads:true');
  for (const open of gates.splice(0)) open();
  assert.deepEqual(await Promise.all([a1, a2, b1]), ['alice', 'alice', 'bob']);
  await assert.rejects(
    budget.within({ principal: 'alice', bytes: 100 }, refuse, async () => {
      throw new Error('store down');
    }),
    /store down/,
  );
  const again = hold('alice', 100);
  for (const open of gates.splice(0)) open();
  assert.equal(await again, 'alice', 'the whole budget is free again');
});
