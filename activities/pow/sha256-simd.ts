// The per-nonce SHA-256 tail compression as WebAssembly SIMD: four nonces per 128-bit vector,
// several vectors interleaved. The module's bytes are generated here, at load time, from the same
// description as `scanTail` in sha256-midstate.ts: no toolchain, no committed binary. The code
// generator (wasm-simd-gen.ts) hoists what is uniform for the block (rounds 0..2 and the schedule
// words that see no nonce-low bits) out of the per-nonce loop.
import { K, LENGTH_BITS, PAD_WORD, type ScanTarget } from './sha256-midstate.ts';
import { append, c, Gen, OP, S, simd, sleb, uleb, type Val, v128Const } from './wasm-simd-gen.ts';

// The project's TypeScript libs carry no WebAssembly declarations: the little used here, typed here.
/** A compiled module (opaque). */
export type WasmModule = { readonly __wasmModule: unique symbol };
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** Input slots (i32, little-endian, in linear memory from byte 0). */
const SLOT_MID = 0; // 8 words of midstate
const SLOT_W0 = 8;
const SLOT_W1 = 9;
const SLOT_HI = 10;
const SLOT_MASK0 = 11;
const SLOT_MASK1 = 12;

const LANES = 4;
/** Independent 4-lane vectors per loop iteration (more than one spills registers: measured slower). */
const STREAMS = 1;

/** The words every nonce of a call shares: the midstate, the header's last two words, nonce-high. */
interface TailInputs {
  mid: Val[];
  w0: Val;
  w1: Val;
  hi: Val;
}

/** One stream's compression of the tail block; returns the first two hash words. */
function compressTail(g: Gen, inputs: TailInputs, lo: Val): [Val, Val] {
  const { mid, w0, w1, hi } = inputs;
  const w: Val[] = [w0, w1, hi, lo, c(PAD_WORD)];
  for (let t = 5; t < 15; t++) w.push(c(0));
  w.push(c(LENGTH_BITS));
  for (let t = 16; t < 64; t++) {
    const x = w[t - 15] as Val;
    const y = w[t - 2] as Val;
    const s0 = g.xor(g.xor(g.rotr(x, 7), g.rotr(x, 18)), g.shr(x, 3));
    const s1 = g.xor(g.xor(g.rotr(y, 17), g.rotr(y, 19)), g.shr(y, 10));
    w.push(g.sum(s1, w[t - 7] as Val, s0, w[t - 16] as Val));
  }
  let [a, b, cc, d, e, f, gg, h] = mid as [Val, Val, Val, Val, Val, Val, Val, Val];
  for (let t = 0; t < 64; t++) {
    const S1 = g.xor(g.xor(g.rotr(e, 6), g.rotr(e, 11)), g.rotr(e, 25));
    const ch = g.select(f, gg, e);
    const t1 = g.sum(h, S1, ch, c(K[t] as number), w[t] as Val);
    const S0 = g.xor(g.xor(g.rotr(a, 2), g.rotr(a, 13)), g.rotr(a, 22));
    const maj = g.select(cc, a, g.xor(a, b));
    const t2 = g.add(S0, maj);
    h = gg;
    gg = f;
    f = e;
    e = t === 63 ? e : g.add(d, t1); // the last round's e is never read
    d = cc;
    cc = b;
    b = a;
    a = g.add(t1, t2);
  }
  return [g.add(a, mid[0] as Val), g.add(b, mid[1] as Val)];
}

/** Generates the module: exports memory "mem" and scan(loStart, count) -> offset of first hit or -1. */
function buildModuleBytes(streams = STREAMS): Uint8Array {
  const g = new Gen();
  const inputs: TailInputs = {
    mid: Array.from({ length: 8 }, (_, i) => g.input(SLOT_MID + i)),
    w0: g.input(SLOT_W0),
    w1: g.input(SLOT_W1),
    hi: g.input(SLOT_HI),
  };
  const mask0 = g.input(SLOT_MASK0);
  const mask1 = g.input(SLOT_MASK1);
  // Per-stream: the hit vector (all-ones lanes where the hash meets the masks).
  const hits: number[] = [];
  for (let s = 0; s < streams; s++) {
    const lo = g.nonceLanes(s * LANES);
    const [h0, h1] = compressTail(g, inputs, lo);
    const miss = g.or(g.and(h0, mask0), g.and(h1, mask1));
    const hit = 3 + g.v128Locals++;
    g.body.push(OP.localGet, ...uleb((miss as { local: number }).local), ...v128Const([0, 0, 0, 0]));
    g.body.push(...simd(S.i32x4Eq), OP.localSet, ...uleb(hit));
    hits.push(hit);
  }
  const code: number[] = [];
  append(code, g.prologue);
  code.push(OP.loop, OP.void);
  append(code, g.body);
  // Report the first stream (lowest nonces) that hit, at its lowest lane.
  for (const [s, hit] of hits.entries()) {
    code.push(OP.localGet, ...uleb(hit), ...simd(S.anyTrue), OP.if, OP.void);
    code.push(OP.localGet, 2, OP.i32Const, ...sleb(s * LANES), OP.i32Add);
    code.push(OP.localGet, ...uleb(hit), ...simd(S.i32x4Bitmask), OP.i32Ctz, OP.i32Add, OP.return);
    code.push(OP.end);
  }
  code.push(OP.localGet, 2, OP.i32Const, ...sleb(streams * LANES), OP.i32Add, OP.localTee, 2);
  code.push(OP.localGet, 1, OP.i32LtU, OP.brIf, 0, OP.end);
  code.push(OP.i32Const, ...sleb(-1), OP.end);

  const locals = [2, 1, OP.i32, ...uleb(g.v128Locals), OP.v128];
  const funcBody = [...locals];
  append(funcBody, code);
  const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];
  const name = (s: string) => [s.length, ...Buffer.from(s, 'ascii')];
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 2, OP.i32, OP.i32, 1, OP.i32]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('scan'), 0x00, 0, ...name('mem'), 0x02, 0]),
  ];
  append(bytes, [
    10,
    ...uleb(funcBody.length + 1 + uleb(funcBody.length).length),
    1,
    ...uleb(funcBody.length),
  ]);
  append(bytes, funcBody);
  return Uint8Array.from(bytes);
}

/**
 * Nonces per call into the module. Short calls let V8 swap in the optimised tier soon (a running
 * call keeps the baseline code) and cost nothing measurable per call.
 */
const MAX_CALL = 1 << 16;

export class SimdScanner {
  private readonly scanFn: (loStart: number, count: number) => number;
  private readonly slots: Int32Array;

  constructor(module: WasmModule) {
    const instance = new (wasm as WasmApi).Instance(module, {});
    const exports = instance.exports as {
      scan: (a: number, b: number) => number;
      mem: { buffer: ArrayBuffer };
    };
    this.scanFn = exports.scan;
    this.slots = new Int32Array(exports.mem.buffer, 0, 16);
  }

  setBlock({ ctx, mask0, mask1 }: ScanTarget): void {
    this.slots.set(ctx.midstate, SLOT_MID);
    this.slots[SLOT_W0] = ctx.w0;
    this.slots[SLOT_W1] = ctx.w1;
    this.slots[SLOT_MASK0] = mask0;
    this.slots[SLOT_MASK1] = mask1;
  }

  /** Same contract as scanTail, for the block and masks last given to setBlock. */
  scan(hi: number, loFrom: number, loTo: number): number {
    this.slots[SLOT_HI] = hi;
    for (let from = loFrom; from < loTo; ) {
      const count = Math.min(loTo - from, MAX_CALL);
      const r = this.scanFn(from | 0, count);
      if (r >= 0 && r < count) return from + r;
      from += count;
    }
    return -1;
  }
}

let compiled: WasmModule | null | undefined;

/** Compiles generated module bytes (for experiments with other stream counts). */
function compileModule(bytes: Uint8Array): WasmModule | null {
  return wasm?.validate(bytes) ? new wasm.Module(bytes) : null;
}

/** The compiled module, or null where WebAssembly SIMD is unavailable (callers use scanTail). */
export function simdModule(): WasmModule | null {
  if (compiled === undefined) compiled = compileModule(buildModuleBytes());
  return compiled;
}
