// The miner's threads yield the host to everything else: each nonce thread runs at MINER_NICE
// (read from the kernel's own record of every thread of this process), while the process's main
// thread, which serves Temporal, keeps its priority. A bad MINER_NICE is named.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { blockHeader, MAX_NONCE } from '../../activities/pow/block.ts';
import { minerNice } from '../../activities/pow/miner-priority.ts';
import { NoncePool } from '../../activities/pow/nonce-pool.ts';
import { GENESIS_HASH } from '../../workflows/mining/genesis.ts';
import { eventually } from '../support/temporal.ts';

/** The nice value of every thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The command name may hold spaces: the fields after it start past its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    nices.set(Number(tid), Number(fields[16]));
  }
  return nices;
}

test('the nonce threads run at MINER_NICE; the main thread keeps its own', async () => {
  const before = threadNices();
  const pool = new NoncePool(2);
  // The pool's threads do not hold the process open (the worker's connection does): this test does.
  const open = setInterval(() => {}, 1_000);
  try {
    const header = blockHeader({ previousHash: GENESIS_HASH, index: 0, data: 'nice', difficulty: 8 });
    // Searches, so the threads are up.
    for (let i = 0; i < 4; i++)
      await pool.search({ header, difficulty: 8, from: i * 1000, to: MAX_NONCE + 1 }).done;
    // Each thread lowers itself as it starts: one that got no work yet may still be starting.
    const lowered = await eventually(
      async () => {
        const added = [...threadNices()].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
        const count = added.filter((nice) => nice === minerNice()).length;
        return count >= 2 ? count : undefined;
      },
      10_000,
      'both nonce threads at MINER_NICE',
      50,
    );
    assert.equal(lowered, 2);
    assert.equal(threadNices().get(process.pid), 0, 'the main thread is not lowered');
  } finally {
    await pool.close();
    clearInterval(open);
  }
});

test('MINER_NICE: 10 by default, 0 to 19, anything else named', () => {
  assert.equal(minerNice({}), 10);
  assert.equal(minerNice({ MINER_NICE: '0' }), 0);
  assert.equal(minerNice({ MINER_NICE: '19' }), 19);
  for (const bad of ['20', '-1', '2.5', 'low'])
    assert.throws(() => minerNice({ MINER_NICE: bad }), /MINER_NICE/);
});
