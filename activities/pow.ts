// Proof of work, pure: no I/O, no clocks. The block header is 80 bytes:
// previous hash (32) | SHA-256 of data (32) | index (u32 BE) | difficulty (u32 BE) | nonce (u64 BE).
import { createHash } from 'node:crypto';

export const HEADER_BYTES = 80;
export const NONCE_OFFSET = 72;
export const MAX_DIFFICULTY = 64;
export const MAX_NONCE = Number.MAX_SAFE_INTEGER;
export const GENESIS_HASH = '0'.repeat(64);

export interface BlockSpec {
  previousHash: string;
  index: number;
  data: string;
  difficulty: number;
}

export interface NonceFound {
  nonce: number;
  hash: string;
}

export class InvalidMiningParameters extends Error {
  override name = 'InvalidMiningParameters';
}

export function validateBlockSpec(spec: BlockSpec): void {
  const { previousHash, index, data, difficulty } = spec;
  if (!/^[0-9a-f]{64}$/.test(previousHash)) {
    throw new InvalidMiningParameters('previousHash must be 64 lowercase hex characters');
  }
  if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) {
    throw new InvalidMiningParameters('index must be an integer from 0 to 4294967295');
  }
  if (typeof data !== 'string') throw new InvalidMiningParameters('data must be a string');
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > MAX_DIFFICULTY) {
    throw new InvalidMiningParameters(`difficulty must be an integer from 0 to ${MAX_DIFFICULTY}`);
  }
}

export function blockHeader(spec: BlockSpec): Buffer {
  validateBlockSpec(spec);
  const header = Buffer.alloc(HEADER_BYTES);
  Buffer.from(spec.previousHash, 'hex').copy(header, 0);
  createHash('sha256').update(spec.data, 'utf8').digest().copy(header, 32);
  header.writeUInt32BE(spec.index, 64);
  header.writeUInt32BE(spec.difficulty, 68);
  return header;
}

export function writeNonce(header: Buffer, nonce: number): void {
  header.writeUInt32BE(Math.floor(nonce / 0x100000000), NONCE_OFFSET);
  header.writeUInt32BE(nonce >>> 0, NONCE_OFFSET + 4);
}

export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

export function meetsDifficulty(digest: Uint8Array, difficulty: number): boolean {
  return leadingZeroBits(digest) >= difficulty;
}

export function hashBlock(spec: BlockSpec, nonce: number): string {
  const header = blockHeader(spec);
  writeNonce(header, nonce);
  return createHash('sha256').update(header).digest('hex');
}

/**
 * Tries nonces from `from` (inclusive) to `to` (exclusive), in order; returns the first that
 * meets the difficulty, or null. Callers loop over ranges to interleave heartbeats.
 */
export function searchNonces(
  header: Buffer,
  difficulty: number,
  from: number,
  to: number,
): NonceFound | null {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to < from) {
    throw new InvalidMiningParameters(`bad nonce range [${from}, ${to})`);
  }
  for (let nonce = from; nonce < to; nonce++) {
    writeNonce(header, nonce);
    const digest = createHash('sha256').update(header).digest();
    if (meetsDifficulty(digest, difficulty)) return { nonce, hash: digest.toString('hex') };
  }
  return null;
}
