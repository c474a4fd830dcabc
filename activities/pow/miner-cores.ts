// The per-nonce cores of the miner, fastest first; all have scanTail's contract and answers:
//   native-sha  SHA extensions of x86 CPUs, two nonces interleaved (native/miner.c, built at
//               install time when a C compiler is there)
//   wasm-simd   generated WebAssembly, four nonces per vector (sha256-simd.ts)
//   scalar      plain TypeScript (sha256-midstate.ts)
// MINER_CORE=native-sha|wasm-simd|scalar picks one (falling back down the list if unavailable).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type ScanTarget, scanTail } from './sha256-midstate.ts';
import { SimdScanner, simdModule } from './sha256-simd.ts';

export type CoreName = 'native-sha' | 'wasm-simd' | 'scalar';
const CORE_NAMES: readonly CoreName[] = ['native-sha', 'wasm-simd', 'scalar'];

export interface Core {
  readonly name: CoreName;
  /** First lo in [loFrom, loTo) (loTo <= 2^32) meeting the masks, for nonce hi·2^32 + lo; or -1. */
  scan(target: ScanTarget, hi: number, loFrom: number, loTo: number): number;
}

const NATIVE_PATH = fileURLToPath(new URL('../../dist/native/miner.node', import.meta.url));

interface NativeMiner {
  shaNi: boolean;
  scan(
    midstate: Int32Array,
    w0: number,
    w1: number,
    hi: number,
    loFrom: number,
    loTo: number,
    mask0: number,
    mask1: number,
  ): number;
}

function loadNative(): Core | null {
  if (!existsSync(NATIVE_PATH)) return null;
  try {
    const native = createRequire(import.meta.url)(NATIVE_PATH) as NativeMiner;
    if (!native.shaNi) return null;
    return {
      name: 'native-sha',
      scan: ({ ctx, mask0, mask1 }, hi, loFrom, loTo) =>
        native.scan(ctx.midstate, ctx.w0, ctx.w1, hi, loFrom, loTo, mask0, mask1),
    };
  } catch {
    return null;
  }
}

function loadSimd(): Core | null {
  const module = simdModule();
  if (!module) return null;
  const simd = new SimdScanner(module);
  return {
    name: 'wasm-simd',
    scan(target, hi, loFrom, loTo) {
      simd.setBlock(target);
      return simd.scan(hi, loFrom, loTo);
    },
  };
}

const scalar: Core = { name: 'scalar', scan: scanTail };
const loaded = new Map<CoreName, Core | null>();

/** The named core if this machine has it, else null. */
export function core(name: CoreName): Core | null {
  if (!loaded.has(name)) {
    loaded.set(name, name === 'native-sha' ? loadNative() : name === 'wasm-simd' ? loadSimd() : scalar);
  }
  return loaded.get(name) ?? null;
}

/** Every core this machine has, fastest first. */
export function availableCores(): Core[] {
  return CORE_NAMES.map(core).filter((c): c is Core => c !== null);
}

let preferred: Core | undefined;

/** The core searches use: MINER_CORE if set and available, else the fastest available. */
export function defaultCore(): Core {
  if (!preferred) {
    const wanted = process.env.MINER_CORE as CoreName | undefined;
    if (wanted && !CORE_NAMES.includes(wanted)) {
      throw new Error(`MINER_CORE must be one of ${CORE_NAMES.join(', ')}, got "${wanted}"`);
    }
    const order = wanted ? CORE_NAMES.slice(CORE_NAMES.indexOf(wanted)) : CORE_NAMES;
    preferred = order.map(core).find((c): c is Core => c !== null) ?? scalar;
  }
  return preferred;
}
