// The midstate fast path against node:crypto: same digests, same nonces, at every difficulty.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  blockHeader,
  fastCoreName,
  leadingZeroBits,
  MAX_NONCE,
  NonceScanner,
  searchNonces,
  searchNoncesReference,
  writeNonce,
} from '../../activities/pow/block.ts';
import { availableCores, core } from '../../activities/pow/miner-cores.ts';
import { difficultyMasks, scanTail, tailContext, tailDigest } from '../../activities/pow/sha256-midstate.ts';
import { GENESIS_HASH } from '../../workflows/mining/genesis.ts';

const TWO_32 = 2 ** 32;

function referenceDigest(header: Buffer, nonce: number): Buffer {
  const copy = Buffer.from(header);
  writeNonce(copy, nonce);
  return createHash('sha256').update(copy).digest();
}

/** Every nonce in [from, to) with its leading zero bits, through node:crypto. */
function referenceZeros(header: Buffer, from: number, to: number): Int8Array {
  const zeros = new Int8Array(to - from);
  for (let n = from; n < to; n++) zeros[n - from] = leadingZeroBits(referenceDigest(header, n));
  return zeros;
}

/** All nonces in [from, to) meeting `difficulty`, found by repeated fast scans. */
function fastHits(scanner: NonceScanner, from: number, to: number): number[] {
  const hits: number[] = [];
  for (let n = from; n < to; ) {
    const hit = scanner.scan(n, to);
    if (hit < 0) break;
    assert.ok(hit >= n && hit < to, `hit ${hit} inside [${n}, ${to})`);
    hits.push(hit);
    n = hit + 1;
  }
  return hits;
}

describe('midstate fast path', () => {
  it('has WebAssembly SIMD on this Node, and searches on the fastest core available', () => {
    assert.ok(core('wasm-simd'));
    if (!process.env.MINER_CORE) assert.equal(fastCoreName(), availableCores()[0]?.name);
  });

  it('gives node:crypto digests for random headers and nonces, including above 2^32', () => {
    const nonces = [0, 1, 3, 4, 255, 256, TWO_32 - 1, TWO_32, TWO_32 + 1, 2 ** 40 + 12345, MAX_NONCE];
    for (let i = 0; i < 200; i++) {
      const header = randomBytes(80);
      const ctx = tailContext(header);
      const extra = [Math.floor(Math.random() * TWO_32), Math.floor(Math.random() * MAX_NONCE)];
      for (const nonce of [...nonces, ...extra]) {
        assert.deepEqual(
          Buffer.from(tailDigest(ctx, nonce)),
          referenceDigest(header, nonce),
          `nonce ${nonce}`,
        );
      }
    }
  });

  it('difficulty masks agree with leadingZeroBits for every difficulty 0..64', () => {
    const words: Array<[number, number]> = [
      [0, 0],
      [-1, -1],
    ];
    for (let z = 0; z < 64; z++) {
      // Exactly z leading zero bits, random bits below.
      const bits =
        (BigInt(1) << BigInt(63 - z)) |
        (BigInt.asUintN(64, randomBytes(8).readBigUInt64BE()) >> BigInt(z + 1));
      words.push([Number(bits >> BigInt(32)) | 0, Number(bits & BigInt(0xffffffff)) | 0]);
    }
    for (let d = 0; d <= 64; d++) {
      const [mask0, mask1] = difficultyMasks(d);
      for (const [h0, h1] of words) {
        const bytes = Buffer.alloc(32);
        bytes.writeInt32BE(h0, 0);
        bytes.writeInt32BE(h1, 4);
        const meets = (h0 & mask0) === 0 && (h1 & mask1) === 0;
        assert.equal(meets, leadingZeroBits(bytes) >= d, `difficulty ${d}, words ${h0} ${h1}`);
      }
    }
  });

  // Windows at the start, across the 2^32 and 2^33 boundaries, and at the top of the nonce space.
  const windows = [0, TWO_32 - 3001, 2 * TWO_32 - 2998, 2 ** 45 + 7, MAX_NONCE + 1 - 6000];
  for (const start of windows) {
    it(`finds exactly node:crypto's valid nonces for every difficulty 0..32 in [${start}, +6000)`, () => {
      const header = randomBytes(80);
      const to = start + 6000;
      const zeros = referenceZeros(header, start, to);
      for (let d = 0; d <= 32; d++) {
        const expected: number[] = [];
        zeros.forEach((z, i) => {
          if (z >= d) expected.push(start + i);
        });
        if (d <= 8) assert.ok(expected.length > 0, 'the window has hits at low difficulty');
        for (const c of availableCores()) {
          assert.deepEqual(
            fastHits(new NonceScanner(header, d, c), start, to),
            expected,
            `${c.name}, difficulty ${d}`,
          );
        }
      }
    });
  }

  it('matches the node:crypto search (first nonce and hash) on many random blocks', () => {
    for (let i = 0; i < 60; i++) {
      const difficulty = i % 14;
      const spec = { previousHash: randomBytes(32).toString('hex'), index: i, data: `b${i}`, difficulty };
      const from = i % 3 === 0 ? 0 : i % 3 === 1 ? TWO_32 - 2000 : Math.floor(Math.random() * 2 ** 50);
      const to = from + 40_000;
      const fast = searchNonces(blockHeader(spec), difficulty, from, to);
      const reference = searchNoncesReference(blockHeader(spec), difficulty, from, to);
      assert.deepEqual(fast, reference, `block ${i} from ${from}`);
    }
  });

  it('never reports a nonce at or beyond the end of the range, at every lane offset', () => {
    const spec = { previousHash: GENESIS_HASH, index: 0, data: 'lanes', difficulty: 6 };
    const header = blockHeader(spec);
    const all = searchNoncesReference(blockHeader(spec), 6, 0, 10_000);
    assert.ok(all);
    for (let from = 0; from <= all.nonce; from++) {
      for (let to = from; to <= all.nonce; to++) assert.equal(searchNonces(header, 6, from, to), null);
      assert.deepEqual(searchNonces(header, 6, from, all.nonce + 1), all);
    }
  });

  it('every core agrees with the portable scalar scan', () => {
    const cores = availableCores();
    for (let i = 0; i < 20; i++) {
      const ctx = tailContext(randomBytes(80));
      const [mask0, mask1] = difficultyMasks(i % 12);
      const hi = i * 977;
      const lo = i % 2 ? 0 : TWO_32 - 50_001;
      const expected = scanTail({ ctx, mask0, mask1 }, hi, lo, lo + 50_001);
      for (const c of cores)
        assert.equal(c.scan({ ctx, mask0, mask1 }, hi, lo, lo + 50_001), expected, c.name);
    }
  });

  it('rejects bad input like the reference', () => {
    const header = blockHeader({ previousHash: GENESIS_HASH, index: 0, data: '', difficulty: 1 });
    assert.throws(() => searchNonces(header, 65, 0, 1), /difficulty/);
    assert.throws(() => searchNonces(header, 1, 0, 2 ** 53 + 2), /bad nonce range/);
    assert.throws(() => searchNonces(header.subarray(0, 79), 1, 0, 1), /80 bytes/);
  });
});
