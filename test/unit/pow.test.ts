import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  blockHeader,
  HEADER_BYTES,
  hashBlock,
  InvalidMiningParameters,
  leadingZeroBits,
  meetsDifficulty,
  searchNonces,
} from '../../activities/pow/block.ts';
import { GENESIS_HASH } from '../../workflows/mining/genesis.ts';

const spec = { previousHash: GENESIS_HASH, index: 0, data: 'hello', difficulty: 0 };

describe('proof-of-work core', () => {
  it('counts leading zero bits across byte boundaries', () => {
    assert.equal(leadingZeroBits(Uint8Array.from([0x80, 0])), 0);
    assert.equal(leadingZeroBits(Uint8Array.from([0x01, 0xff])), 7);
    assert.equal(leadingZeroBits(Uint8Array.from([0x00, 0x10])), 11);
    assert.equal(leadingZeroBits(Uint8Array.from([0x00, 0x00, 0x00])), 24);
    assert.ok(meetsDifficulty(Uint8Array.from([0x00, 0x1f]), 11));
    assert.ok(!meetsDifficulty(Uint8Array.from([0x00, 0x1f]), 12));
  });

  for (const difficulty of [1, 3, 5, 7, 8, 9, 12, 13, 15]) {
    it(`finds a nonce whose hash has ${difficulty} leading zero bits, and none earlier`, () => {
      const block = { ...spec, index: difficulty, difficulty };
      const found = searchNonces(blockHeader(block), difficulty, 0, 10_000_000);
      assert.ok(found, 'a nonce is found');
      assert.equal(found.hash, hashBlock(block, found.nonce));
      assert.ok(leadingZeroBits(Buffer.from(found.hash, 'hex')) >= difficulty);
      for (let nonce = 0; nonce < Math.min(found.nonce, 5_000); nonce++) {
        assert.ok(
          leadingZeroBits(Buffer.from(hashBlock(block, nonce), 'hex')) < difficulty,
          `nonce ${nonce}`,
        );
      }
    });
  }

  it('is deterministic: same input, same nonce', () => {
    const block = { ...spec, data: 'same', difficulty: 12 };
    const a = searchNonces(blockHeader(block), 12, 0, 10_000_000);
    const b = searchNonces(blockHeader(block), 12, 0, 10_000_000);
    assert.deepEqual(a, b);
  });

  it('resuming a search from a later nonce finds the same answer as a search from 0', () => {
    const block = { ...spec, data: 'resume', difficulty: 14 };
    const full = searchNonces(blockHeader(block), 14, 0, 10_000_000);
    assert.ok(full && full.nonce > 10);
    const header = blockHeader(block);
    assert.equal(searchNonces(header, 14, 0, Math.floor(full.nonce / 2)), null);
    assert.deepEqual(searchNonces(header, 14, Math.floor(full.nonce / 2), 10_000_000), full);
  });

  it('hashes an 80-byte header that commits to previous hash, data, index, difficulty and nonce', () => {
    const header = blockHeader({ ...spec, index: 7, difficulty: 9 });
    assert.equal(header.length, HEADER_BYTES);
    assert.equal(header.subarray(0, 32).toString('hex'), GENESIS_HASH);
    assert.deepEqual(header.subarray(32, 64), createHash('sha256').update('hello').digest());
    assert.equal(header.readUInt32BE(64), 7);
    assert.equal(header.readUInt32BE(68), 9);
    const base = hashBlock(spec, 1);
    assert.notEqual(hashBlock({ ...spec, data: 'hellO' }, 1), base);
    assert.notEqual(hashBlock({ ...spec, index: 1 }, 1), base);
    assert.notEqual(hashBlock({ ...spec, previousHash: 'f'.repeat(64) }, 1), base);
    assert.notEqual(hashBlock(spec, 2), base);
    assert.notEqual(hashBlock(spec, 2 ** 32 + 1), base, 'high nonce bits count');
  });

  it('rejects bad parameters with a clear error', () => {
    assert.throws(
      () => blockHeader({ ...spec, difficulty: -1 }),
      /difficulty must be an integer from 0 to 64/,
    );
    assert.throws(() => blockHeader({ ...spec, difficulty: 1.5 }), InvalidMiningParameters);
    assert.throws(() => blockHeader({ ...spec, difficulty: 65 }), /difficulty/);
    assert.throws(() => blockHeader({ ...spec, index: -1 }), /index must be an integer/);
    assert.throws(
      () => blockHeader({ ...spec, previousHash: 'xyz' }),
      /previousHash must be 64 lowercase hex/,
    );
    assert.throws(() => searchNonces(blockHeader(spec), 1, 5, 2), /bad nonce range/);
  });
});
