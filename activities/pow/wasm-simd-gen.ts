// A tiny code generator for WebAssembly SIMD over 32-bit words (four lanes per v128): it tracks, for
// every intermediate word, whether it is a constant (folded here), uniform for the call (computed
// once, before the loop) or varying per nonce (inside the loop), and writes each where it belongs.
// sha256-simd.ts describes the SHA-256 tail with it.

export type Val =
  | { kind: 'const'; c: number }
  | { kind: 'uni'; local: number }
  | { kind: 'vec'; local: number };

/** dst.push(...src) without the argument-count limit. */
export function append(dst: number[], src: number[]): void {
  for (const b of src) dst.push(b);
}

export function uleb(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  let v = n | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

export const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  brIf: 0x0d,
  return: 0x0f,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Const: 0x41,
  i32LtU: 0x49,
  i32Ctz: 0x68,
  i32Add: 0x6a,
  void: 0x40,
  i32: 0x7f,
  v128: 0x7b,
};
const SIMD = 0xfd;
export const S = {
  load32Splat: 0x09,
  v128Const: 0x0c,
  i32x4Splat: 0x11,
  i32x4Eq: 0x37,
  and: 0x4e,
  or: 0x50,
  xor: 0x51,
  bitselect: 0x52,
  anyTrue: 0x53,
  i32x4Bitmask: 0xa4,
  i32x4Shl: 0xab,
  i32x4ShrU: 0xad,
  i32x4Add: 0xae,
};

export function simd(op: number): number[] {
  return [SIMD, ...uleb(op)];
}

export function v128Const(lanes: number[]): number[] {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < 4; i++) view.setInt32(i * 4, lanes[i] ?? 0, true);
  return [...simd(S.v128Const), ...bytes];
}

export class Gen {
  readonly prologue: number[] = [];
  readonly body: number[] = [];
  /** Params: 0 loStart, 1 count. Locals: 2 i (i32), then v128 locals from 3. */
  v128Locals = 0;

  private newLocal(): number {
    return 3 + this.v128Locals++;
  }

  private push(code: number[], v: Val): void {
    if (v.kind === 'const') code.push(...v128Const([v.c, v.c, v.c, v.c]));
    else code.push(OP.localGet, ...uleb(v.local));
  }

  private emit(args: Val[], op: number[], fold: (...c: number[]) => number, imm?: number): Val {
    if (args.every((a) => a.kind === 'const')) {
      return { kind: 'const', c: fold(...args.map((a) => (a as { c: number }).c)) | 0 };
    }
    const varying = args.some((a) => a.kind === 'vec');
    const code = varying ? this.body : this.prologue;
    for (const a of args) this.push(code, a);
    if (imm !== undefined) code.push(OP.i32Const, ...sleb(imm));
    code.push(...op);
    const local = this.newLocal();
    code.push(OP.localSet, ...uleb(local));
    return { kind: varying ? 'vec' : 'uni', local };
  }

  input(slot: number): Val {
    const local = this.newLocal();
    this.prologue.push(OP.i32Const, 0, ...simd(S.load32Splat), 2, ...uleb(slot * 4));
    this.prologue.push(OP.localSet, ...uleb(local));
    return { kind: 'uni', local };
  }

  /** loStart + i + [first .. first+3]: the nonce-low words of one vector. */
  nonceLanes(first: number): Val {
    const local = this.newLocal();
    this.body.push(OP.localGet, 0, OP.localGet, 2, OP.i32Add, ...simd(S.i32x4Splat));
    this.body.push(...v128Const([first, first + 1, first + 2, first + 3]), ...simd(S.i32x4Add));
    this.body.push(OP.localSet, ...uleb(local));
    return { kind: 'vec', local };
  }

  add(x: Val, y: Val): Val {
    if (x.kind === 'const' && x.c === 0) return y;
    if (y.kind === 'const' && y.c === 0) return x;
    return this.emit([x, y], simd(S.i32x4Add), (a, b) => (a as number) + (b as number));
  }

  /** Sum with constants and uniform terms first, so their partial sums are hoisted out of the loop. */
  sum(...terms: Val[]): Val {
    const rank = { const: 0, uni: 1, vec: 2 };
    const sorted = [...terms].sort((p, q) => rank[p.kind] - rank[q.kind]);
    return sorted.reduce((acc, t) => this.add(acc, t));
  }

  xor(x: Val, y: Val): Val {
    if (x.kind === 'const' && x.c === 0) return y;
    if (y.kind === 'const' && y.c === 0) return x;
    return this.emit([x, y], simd(S.xor), (a, b) => (a as number) ^ (b as number));
  }

  or(x: Val, y: Val): Val {
    return this.emit([x, y], simd(S.or), (a, b) => (a as number) | (b as number));
  }

  and(x: Val, y: Val): Val {
    return this.emit([x, y], simd(S.and), (a, b) => (a as number) & (b as number));
  }

  /** (v1 & mask) | (v2 & ~mask) */
  select(v1: Val, v2: Val, mask: Val): Val {
    return this.emit(
      [v1, v2, mask],
      simd(S.bitselect),
      (a, b, m) => ((a as number) & (m as number)) | ((b as number) & ~(m as number)),
    );
  }

  shr(x: Val, n: number): Val {
    return this.emit([x], simd(S.i32x4ShrU), (a) => (a as number) >>> n, n);
  }

  shl(x: Val, n: number): Val {
    return this.emit([x], simd(S.i32x4Shl), (a) => (a as number) << n, n);
  }

  rotr(x: Val, n: number): Val {
    return this.or(this.shr(x, n), this.shl(x, 32 - n));
  }
}

export const c = (v: number): Val => ({ kind: 'const', c: v | 0 });
