// Proof of work, pure: no I/O, no clocks. The block header is 80 bytes:
// previous hash (32) | SHA-256 of data (32) | index (u32 BE) | difficulty (u32 BE) | nonce (u64 BE).
// The search runs on the midstate fast path (sha256-midstate.ts, miner-cores.ts); the hash it
// reports is always recomputed with node:crypto.
import { createHash } from 'node:crypto';
import { type Core, type CoreName, defaultCore } from './miner-cores.ts';
import { difficultyMasks, type ScanTarget, tailContext } from './sha256-midstate.ts';

export const HEADER_BYTES = 80;
const NONCE_OFFSET = 72;
export const MAX_DIFFICULTY = 64;
export const MAX_NONCE = Number.MAX_SAFE_INTEGER;

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

function validateBlockSpec(spec: BlockSpec): void {
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

const TWO_32 = 0x100000000;

/** 0 <= from <= to <= MAX_NONCE + 1, integers. */
function validRange(from: number, to: number): boolean {
  return Number.isInteger(from) && Number.isInteger(to) && from >= 0 && to >= from && to <= MAX_NONCE + 1;
}

function checkRange(header: Uint8Array, difficulty: number, from: number, to: number): void {
  if (!validRange(from, to)) {
    throw new InvalidMiningParameters(`bad nonce range [${from}, ${to})`);
  }
  if (header.length !== HEADER_BYTES) {
    throw new InvalidMiningParameters(`header must be ${HEADER_BYTES} bytes, got ${header.length}`);
  }
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > MAX_DIFFICULTY) {
    throw new InvalidMiningParameters(`difficulty must be an integer from 0 to ${MAX_DIFFICULTY}`);
  }
}

/** Which per-nonce core searches use on this thread (see miner-cores.ts). */
export function fastCoreName(): CoreName {
  return defaultCore().name;
}

/**
 * One block's nonce search on the fast path: the header's first 64 bytes are compressed once,
 * then one compression per nonce. `scan` returns the same nonce as the node:crypto search.
 */
export class NonceScanner {
  private readonly target: ScanTarget;

  constructor(
    header: Uint8Array,
    difficulty: number,
    private readonly core: Core = defaultCore(),
  ) {
    checkRange(header, difficulty, 0, 0);
    const [mask0, mask1] = difficultyMasks(difficulty);
    this.target = { ctx: tailContext(header), mask0, mask1 };
  }

  /** The first nonce in [from, to) that meets the difficulty, or -1. */
  scan(from: number, to: number): number {
    if (!validRange(from, to)) {
      throw new InvalidMiningParameters(`bad nonce range [${from}, ${to})`);
    }
    for (let n = from; n < to; ) {
      const hi = Math.floor(n / TWO_32);
      const base = hi * TWO_32;
      const segmentEnd = Math.min(to, base + TWO_32);
      const lo = this.core.scan(this.target, hi, n - base, segmentEnd - base);
      if (lo >= 0) return base + lo;
      n = segmentEnd;
    }
    return -1;
  }
}

/**
 * Tries nonces from `from` (inclusive) to `to` (exclusive), in order; returns the first that
 * meets the difficulty, or null. Callers loop over ranges to interleave heartbeats.
 * Leaves the found nonce (if any) written in `header`.
 */
export function searchNonces(
  header: Buffer,
  difficulty: number,
  from: number,
  to: number,
): NonceFound | null {
  checkRange(header, difficulty, from, to);
  if (from === to) return null;
  const nonce = new NonceScanner(header, difficulty).scan(from, to);
  return nonce < 0 ? null : { nonce, hash: hashHeader(header, nonce) };
}

/** SHA-256 of `header` with `nonce` written into it, as hex, through node:crypto. */
export function hashHeader(header: Buffer, nonce: number): string {
  writeNonce(header, nonce);
  return createHash('sha256').update(header).digest('hex');
}

/** The original search: one node:crypto hash per nonce. The reference the fast path must match. */
export function searchNoncesReference(
  header: Buffer,
  difficulty: number,
  from: number,
  to: number,
): NonceFound | null {
  if (!validRange(from, to)) {
    throw new InvalidMiningParameters(`bad nonce range [${from}, ${to})`);
  }
  for (let nonce = from; nonce < to; nonce++) {
    writeNonce(header, nonce);
    const digest = createHash('sha256').update(header).digest();
    if (meetsDifficulty(digest, difficulty)) return { nonce, hash: digest.toString('hex') };
  }
  return null;
}
