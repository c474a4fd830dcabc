// The thread pool's search: the same smallest nonce as the single-threaded search, whatever the
// thread count; a progress mark that never passes an untried nonce; prompt abort; clean close;
// searches served in turn, one arriving behind long ones taken by the next thread to free.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { blockHeader, MAX_NONCE, searchNonces } from '../../activities/pow/block.ts';
import { NoncePool } from '../../activities/pow/nonce-pool.ts';
import { GENESIS_HASH } from '../../workflows/mining/genesis.ts';

const spec = (data: string, difficulty: number, index = 0) => ({
  previousHash: GENESIS_HASH,
  index,
  data,
  difficulty,
});

const pools = [new NoncePool(1), new NoncePool(2), new NoncePool(3)];

describe('nonce pool', () => {
  after(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
  });

  for (const pool of pools) {
    it(`${pool.size} thread(s): the same first nonce as the single-threaded search`, async () => {
      for (const [i, difficulty] of [0, 1, 5, 9, 13, 16, 18, 20].entries()) {
        const block = spec(`pool-${i}`, difficulty, i);
        for (const from of [0, 7, 2 ** 32 - 100_000]) {
          const expected = searchNonces(blockHeader(block), difficulty, from, MAX_NONCE + 1);
          const search = pool.search({ header: blockHeader(block), difficulty, from, to: MAX_NONCE + 1 });
          assert.equal(await search.done, expected?.nonce, `difficulty ${difficulty} from ${from}`);
        }
      }
    });
  }

  it('returns null when the range holds no valid nonce, having tried all of it', async () => {
    const block = spec('empty-range', 20);
    const first = searchNonces(blockHeader(block), 20, 0, MAX_NONCE + 1);
    assert.ok(first && first.nonce > 1000);
    const search = pools[1]?.search({ header: blockHeader(block), difficulty: 20, from: 3, to: first.nonce });
    assert.ok(search);
    assert.equal(await search.done, null);
    assert.equal(search.triedBelow, first.nonce);
    const upTo = pools[1]?.search({
      header: blockHeader(block),
      difficulty: 20,
      from: 0,
      to: first.nonce + 1,
    });
    assert.equal(await upTo?.done, first.nonce);
  });

  it('runs several searches at once, each with its own answer', async () => {
    const blocks = [spec('a', 14), spec('b', 16), spec('c', 12), spec('d', 17)];
    const pool = pools[1] as NoncePool;
    const answers = await Promise.all(
      blocks.map(
        (b) => pool.search({ header: blockHeader(b), difficulty: b.difficulty, from: 0, to: 2 ** 40 }).done,
      ),
    );
    assert.deepEqual(
      answers,
      blocks.map((b) => searchNonces(blockHeader(b), b.difficulty, 0, 2 ** 40)?.nonce),
    );
  });

  it('progress only marks nonces that were all tried, and rises while the search runs', async () => {
    const block = spec('progress', 64); // never found: the search runs until aborted
    const controller = new AbortController();
    const pool = pools[1] as NoncePool;
    const search = pool.search({
      header: blockHeader(block),
      difficulty: 64,
      from: 1000,
      to: MAX_NONCE + 1,
      signal: controller.signal,
    });
    // Marks taken until progress has risen (how fast is the miner benchmark's business, not a
    // test's: the machine may be busy), within a deadline.
    const marks: number[] = [search.triedBelow];
    const deadline = Date.now() + 10_000;
    while ((marks.at(-1) as number) <= (marks[0] as number) && Date.now() < deadline) {
      await delay(50);
      marks.push(search.triedBelow);
    }
    for (let i = 0; i < 3; i++) {
      await delay(20);
      marks.push(search.triedBelow);
    }
    assert.ok((marks[0] as number) >= 1000);
    assert.deepEqual(
      [...marks].sort((x, y) => x - y),
      marks,
      'never goes back',
    );
    assert.ok((marks.at(-1) as number) > (marks[0] as number), `progress within 10 s: ${marks.join(', ')}`);
    const aborted = Date.now();
    controller.abort(new Error('stop'));
    await assert.rejects(search.done, /stop/);
    // The threads drop the aborted search within a slice: a new search is answered at once.
    const next = pool.search({ header: blockHeader(spec('after', 4)), difficulty: 4, from: 0, to: 1000 });
    assert.equal(await next.done, searchNonces(blockHeader(spec('after', 4)), 4, 0, 1000)?.nonce);
    assert.ok(Date.now() - aborted < 500, `answered ${Date.now() - aborted} ms after the abort`);
  });

  it('an already aborted signal rejects without work; a closed pool refuses searches', async () => {
    const pool = new NoncePool(1);
    const search = pool.search({
      header: blockHeader(spec('x', 8)),
      difficulty: 8,
      from: 0,
      to: 100,
      signal: AbortSignal.abort(new Error('gone')),
    });
    await assert.rejects(search.done, /gone/);
    const running = pool.search({ header: blockHeader(spec('y', 64)), difficulty: 64, from: 0, to: 2 ** 40 });
    await pool.close();
    await assert.rejects(running.done, /closed/);
    assert.throws(
      () => pool.search({ header: blockHeader(spec('z', 1)), difficulty: 1, from: 0, to: 1 }),
      /closed/,
    );
  });

  /** Searches that never find a nonce, on `pool`, each from `from`; resolves once all have progressed. */
  async function endless(pool: NoncePool, count: number, label: string) {
    const controller = new AbortController();
    const searches = Array.from({ length: count }, (_, i) =>
      pool.search({
        header: blockHeader(spec(`${label}-${i}`, 64)),
        difficulty: 64,
        from: 0,
        to: MAX_NONCE + 1,
        signal: controller.signal,
      }),
    );
    for (const search of searches) search.done.catch(() => {});
    const deadline = Date.now() + 20_000;
    while (searches.some((s) => s.triedBelow === 0)) {
      assert.ok(Date.now() < deadline, 'every search progressed within 20 s');
      await delay(20);
    }
    return { searches, stop: () => controller.abort(new Error('stop')) };
  }

  it('a search arriving behind long ones is taken by the next thread to free, not after a turn of each', async () => {
    const pool = new NoncePool(1);
    try {
      const long = await endless(pool, 8, 'long');
      const before = long.searches.map((s) => s.triedBelow);
      const easy = spec('easy', 1);
      const search = pool.search({ header: blockHeader(easy), difficulty: 1, from: 0, to: MAX_NONCE + 1 });
      assert.equal(await search.done, searchNonces(blockHeader(easy), 1, 0, MAX_NONCE + 1)?.nonce);
      // The thread's running chunk and the one queued behind it (two per thread) finish first; no other.
      const advanced = long.searches.filter((s, i) => s.triedBelow > (before[i] as number)).length;
      assert.ok(advanced <= 2, `${advanced} of the 8 long searches took a turn before the new one`);
      long.stop();
    } finally {
      await pool.close();
    }
  });

  it('searches running together share the threads in turn', async () => {
    const pool = new NoncePool(1);
    try {
      const { searches, stop } = await endless(pool, 3, 'together');
      const deadline = Date.now() + 20_000;
      while (Math.max(...searches.map((s) => s.triedBelow)) < 2 ** 23 && Date.now() < deadline)
        await delay(50);
      const tried = searches.map((s) => s.triedBelow);
      stop();
      assert.ok(Math.max(...tried) >= 2 ** 23, `progress within 20 s: ${tried.join(', ')}`);
      assert.ok(Math.min(...tried) >= Math.max(...tried) / 2, `nonces tried per search: ${tried.join(', ')}`);
    } finally {
      await pool.close();
    }
  });

  it('rejects bad ranges and difficulties', () => {
    const pool = pools[0] as NoncePool;
    const header = blockHeader(spec('bad', 1));
    assert.throws(() => pool.search({ header, difficulty: 1, from: 5, to: 2 }), /bad nonce range/);
    assert.throws(() => pool.search({ header, difficulty: 65, from: 0, to: 2 }), /difficulty/);
  });
});
