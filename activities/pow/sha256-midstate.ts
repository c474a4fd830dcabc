// SHA-256 of the 80-byte block header, split at the 64-byte boundary. The header's first 64 bytes
// (previous hash, data hash) do not change while a block is mined, so their compression (the
// midstate) is done once; per nonce only the second block is compressed: header bytes 64..79
// (index, difficulty, nonce high, nonce low) followed by the fixed padding of an 80-byte message.
// Pure: no I/O. This file is the portable reference of the fast path; sha256-simd.ts generates the
// vectorised WebAssembly version of `scanTail` from the same description.

export const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const IV = Int32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** Second-block padding of an 80-byte message: 0x80 after the data, then the length in bits. */
export const PAD_WORD = 0x80000000 | 0;
export const LENGTH_BITS = 80 * 8;

/**
 * Standard SHA-256 compression: `state` (8 words) absorbs the 16 big-endian words `w[0..15]`.
 * `w` must have room for 64 words; it is used as the message schedule.
 */
function compress(state: Int32Array, w: Int32Array): void {
  expand(w);
  let a = state[0] as number;
  let b = state[1] as number;
  let c = state[2] as number;
  let d = state[3] as number;
  let e = state[4] as number;
  let f = state[5] as number;
  let g = state[6] as number;
  let h = state[7] as number;
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + (K[t] as number) + (w[t] as number)) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0] as number) + a;
  state[1] = (state[1] as number) + b;
  state[2] = (state[2] as number) + c;
  state[3] = (state[3] as number) + d;
  state[4] = (state[4] as number) + e;
  state[5] = (state[5] as number) + f;
  state[6] = (state[6] as number) + g;
  state[7] = (state[7] as number) + h;
}

/** What the per-nonce work of one block needs: the midstate and the two fixed tail words. */
export interface TailContext {
  /** State after compressing header bytes 0..63. */
  midstate: Int32Array;
  /** Header bytes 64..67 (block index) and 68..71 (difficulty), as big-endian words. */
  w0: number;
  w1: number;
}

export function tailContext(header: Uint8Array): TailContext {
  if (header.length !== 80) throw new RangeError(`header must be 80 bytes, got ${header.length}`);
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const w = new Int32Array(64);
  for (let i = 0; i < 16; i++) w[i] = view.getInt32(i * 4, false);
  const midstate = IV.slice();
  compress(midstate, w);
  return { midstate, w0: view.getInt32(64, false), w1: view.getInt32(68, false) };
}

/**
 * Masks over the first two hash words: a hash meets `difficulty` leading zero bits exactly when
 * (H0 & mask0) === 0 and (H1 & mask1) === 0.
 */
export function difficultyMasks(difficulty: number): [mask0: number, mask1: number] {
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > 64) {
    throw new RangeError(`difficulty must be an integer from 0 to 64, got ${difficulty}`);
  }
  const mask0 = difficulty === 0 ? 0 : difficulty >= 32 ? -1 : -1 << (32 - difficulty);
  const mask1 = difficulty <= 32 ? 0 : -1 << (64 - difficulty);
  return [mask0, mask1];
}

/** The full 32-byte digest of the header with the given nonce, through the midstate. */
export function tailDigest(ctx: TailContext, nonce: number): Uint8Array {
  const w = new Int32Array(64);
  w[0] = ctx.w0;
  w[1] = ctx.w1;
  w[2] = Math.floor(nonce / 0x100000000);
  w[3] = nonce | 0;
  w[4] = PAD_WORD;
  w[15] = LENGTH_BITS;
  const state = ctx.midstate.slice();
  compress(state, w);
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) view.setInt32(i * 4, state[i] as number, false);
  return out;
}

/** A block's search: its tail context and the masks a hash must meet (`difficultyMasks`). */
export interface ScanTarget {
  ctx: TailContext;
  mask0: number;
  mask1: number;
}

/** The working state after rounds 0..2, which see w0..w2 only: the same for every nonce-low word. */
function firstRounds(m: Int32Array, w: Int32Array): Int32Array {
  let a = m[0] as number;
  let b = m[1] as number;
  let c = m[2] as number;
  let d = m[3] as number;
  let e = m[4] as number;
  let f = m[5] as number;
  let g = m[6] as number;
  let h = m[7] as number;
  for (let t = 0; t < 3; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + (K[t] as number) + (w[t] as number)) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  return Int32Array.of(a, b, c, d, e, f, g, h);
}

/** Message schedule words 16..63 from w[0..15]. */
function expand(w: Int32Array): void {
  for (let t = 16; t < 64; t++) {
    const x = w[t - 15] as number;
    const y = w[t - 2] as number;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[t] = (s1 + (w[t - 7] as number) + s0 + (w[t - 16] as number)) | 0;
  }
}

/**
 * Scalar scan: the first nonce in [hi·2^32 + loFrom, hi·2^32 + loTo) (loTo ≤ 2^32) whose hash
 * meets the target's masks, or -1. One compression per nonce; the schedule words that are zero or
 * fixed for the block are folded, and rounds 0..2 (which see no nonce-low bits) are done once.
 */
export function scanTail(target: ScanTarget, hi: number, loFrom: number, loTo: number): number {
  const { ctx, mask0, mask1 } = target;
  const w = new Int32Array(64);
  w[0] = ctx.w0;
  w[1] = ctx.w1;
  w[2] = hi;
  w[4] = PAD_WORD;
  w[15] = LENGTH_BITS;
  const s3 = firstRounds(ctx.midstate, w);
  const m0 = ctx.midstate[0] as number;
  const m1 = ctx.midstate[1] as number;
  for (let lo = loFrom; lo < loTo; lo++) {
    w[3] = lo;
    expand(w);
    let a = s3[0] as number;
    let b = s3[1] as number;
    let c = s3[2] as number;
    let d = s3[3] as number;
    let e = s3[4] as number;
    let f = s3[5] as number;
    let g = s3[6] as number;
    let h = s3[7] as number;
    for (let t = 3; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + (g ^ (e & (f ^ g))) + (K[t] as number) + (w[t] as number)) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) | (c & (a | b)))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    // Early exit on the first state word; the second matters only above 32 bits of difficulty.
    if (((a + m0) & mask0) === 0 && ((b + m1) & mask1) === 0) return lo;
  }
  return -1;
}
