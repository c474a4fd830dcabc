// Miner benchmark: hashes per second of the mining core, side by side with OpenSSL in the same run.
//
//   npx tsx bench/miner.ts            (about a minute)
//
// Rows: node:crypto one hash per call (the original core), each fast core on one thread (SHA-256
// midstate + one compression per nonce: native SHA extensions when built, WebAssembly SIMD, and
// the portable scalar fallback),
// `openssl speed -evp sha256` on 80-byte messages (one full hash per call), and the thread pool on
// 1 and 2 (and all) cores. Each timed figure is the best of several alternating rounds, so a burst
// of other load on the machine hurts one sample, not the comparison. No assertion: it prints.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { blockHeader, fastCoreName, NonceScanner, writeNonce } from '../activities/pow/block.ts';
import { availableCores, type Core } from '../activities/pow/miner-cores.ts';
import { NoncePool } from '../activities/pow/nonce-pool.ts';
import { difficultyMasks, scanTail, tailContext } from '../activities/pow/sha256-midstate.ts';
import { GENESIS_HASH } from '../workflows/mining/genesis.ts';

const ROUNDS = 3;
const SECONDS = 2;
const OPENSSL_SECONDS = 3;
const POOL_ROUNDS = 6;
const POOL_SECONDS = 1.5;
// Difficulty 64 is never met in practice: every figure is a full search of its range.
const spec = { previousHash: GENESIS_HASH, index: 1, data: 'bench', difficulty: 64 };
const header = blockHeader(spec);

/**
 * Hashes per CPU-second of this process (user + system time), the divisor `openssl speed` uses by
 * default: per-core figures then compare cores, not how much of one the machine's other load left.
 */
function timed(run: () => number): number {
  const cpu = process.cpuUsage();
  const hashes = run();
  const used = process.cpuUsage(cpu);
  return hashes / ((used.user + used.system) / 1e6);
}

/** node:crypto, one createHash per nonce, as the original search did. */
function nodeCryptoRate(): number {
  return timed(() => {
    const deadline = performance.now() + SECONDS * 1000;
    let n = 0;
    while (performance.now() < deadline) {
      for (let i = 0; i < 10_000; i++, n++) {
        writeNonce(header, n);
        createHash('sha256').update(header).digest();
      }
    }
    return n;
  });
}

let fastNext = 0;
/** A fast core on this thread. */
function fastRate(core: Core): number {
  const scanner = new NonceScanner(header, spec.difficulty, core);
  return timed(() => {
    const deadline = performance.now() + SECONDS * 1000;
    const from = fastNext;
    while (performance.now() < deadline) {
      scanner.scan(fastNext, fastNext + 1_000_000);
      fastNext += 1_000_000;
    }
    return fastNext - from;
  });
}

function scalarRate(): number {
  const ctx = tailContext(header);
  const [mask0, mask1] = difficultyMasks(spec.difficulty);
  return timed(() => {
    let n = 0;
    const deadline = performance.now() + 1000;
    while (performance.now() < deadline) {
      scanTail({ ctx, mask0, mask1 }, 0, n, n + 100_000);
      n += 100_000;
    }
    return n;
  });
}

interface OpenSsl {
  version: string;
  /** Digests of 80 bytes per second, over `processes` parallel processes (`-multi`). */
  rate: (processes?: number) => number | null;
}

/** `openssl speed -evp sha256` on 80-byte buffers, machine-readable. */
function openssl(): OpenSsl | null {
  const version = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  if (version.status !== 0) return null;
  // Some versions print the help to stderr and exit non-zero: read both.
  const helpRun = spawnSync('openssl', ['speed', '-help'], { encoding: 'utf8' });
  const help = `${helpRun.stdout ?? ''}${helpRun.stderr ?? ''}`;
  if (!help.includes('-bytes') || !help.includes('-seconds')) return null;
  const multi = help.includes('-multi');
  return {
    version: version.stdout.trim(),
    rate(processes = 1) {
      if (processes > 1 && !multi) return null;
      const args = ['speed', '-mr', '-bytes', '80', '-seconds', String(OPENSSL_SECONDS)];
      if (processes > 1) args.push('-multi', String(processes));
      const run = spawnSync('openssl', [...args, '-evp', 'sha256'], { encoding: 'utf8' });
      // The last line "+F:<n>:sha256:<bytes per second>" is the total (of all processes with -multi).
      const totals = [...(run.stdout ?? '').matchAll(/^\+F:\d+:[^:]*:([\d.]+)/gm)];
      const bytesPerSecond = Number(totals.at(-1)?.[1]);
      return bytesPerSecond > 0 ? bytesPerSecond / 80 : null;
    },
  };
}

interface PoolSample {
  rate: number;
  /** CPU seconds the process used per wall second: the cores it actually got. */
  cores: number;
}

async function poolRate(pool: NoncePool, seconds: number, perThread: number): Promise<PoolSample> {
  const count = Math.round(perThread * pool.size * seconds);
  const from = fastNext;
  fastNext += count;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await pool.search({ header, difficulty: spec.difficulty, from, to: from + count }).done;
  const wall = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: count / wall, cores: (used.user + used.system) / 1e6 / wall };
}

const best = (xs: number[]) => Math.max(...xs);
const mhs = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;
const ratio = (x: number) => `${x.toFixed(2)}x`;

async function main(): Promise<void> {
  const cores = availableParallelism();
  console.log(`Miner benchmark, ${new Date().toISOString()}:\n`);
  console.log(
    `- machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cores} cores; node ${process.version}; fast core: ${fastCoreName()}`,
  );
  const load = loadavg()[0] ?? 0;
  console.log(
    `- load average (1 min) at start: ${load.toFixed(2)} on ${cores} cores (other processes share them)`,
  );
  const ossl = openssl();
  console.log(`- openssl: ${ossl ? ossl.version : 'not available (or no -bytes/-seconds): skipped'}`);
  console.log(
    `- each figure: the best of ${ROUNDS} rounds (thread pool: ${POOL_ROUNDS}), alternating with OpenSSL; 1-thread rows per CPU-second (as openssl speed counts), pool rows per wall second\n`,
  );

  const fastCores = availableCores().filter((c) => c.name !== 'scalar');
  for (const c of fastCores) fastRate(c); // warm-up (WebAssembly: the optimised tier)
  const samples = { node: [] as number[], openssl: [] as number[] };
  const coreSamples = new Map<Core, number[]>(fastCores.map((c) => [c, []]));
  for (let r = 0; r < ROUNDS; r++) {
    samples.node.push(nodeCryptoRate());
    for (const c of fastCores) coreSamples.get(c)?.push(fastRate(c));
    const o = ossl?.rate();
    if (o) samples.openssl.push(o);
    process.stderr.write(`round ${r + 1}/${ROUNDS}\n`);
  }
  const scalar = best([scalarRate(), scalarRate()]);
  const nodeRate = best(samples.node);
  const coreRates = fastCores.map((c) => ({ name: c.name, rate: best(coreSamples.get(c) ?? [0]) }));
  const fast = coreRates.find((c) => c.name === fastCoreName())?.rate ?? scalar;
  const opensslRate = samples.openssl.length ? best(samples.openssl) : null;

  // Thread pool: 1 thread, 2 threads (and every core when there are more), alternating with
  // OpenSSL on as many processes: the machine's own scaling, measured under the same load.
  const sizes = [...new Set([1, 2, cores])];
  const pools = sizes.map((n) => new NoncePool(n));
  const scaling = new Map<number, PoolSample[]>(sizes.map((n) => [n, []]));
  const opensslMulti = new Map<number, number[]>(sizes.map((n) => [n, []]));
  for (const pool of pools) await poolRate(pool, 0.5, fast); // warm-up every thread
  for (let r = 0; r < POOL_ROUNDS; r++) {
    for (const pool of pools) {
      scaling.get(pool.size)?.push(await poolRate(pool, POOL_SECONDS, fast));
      if (pool.size > 1 && r < ROUNDS) {
        const o = ossl?.rate(pool.size);
        if (o) opensslMulti.get(pool.size)?.push(o);
      }
    }
    process.stderr.write(`pool round ${r + 1}/${POOL_ROUNDS}\n`);
  }
  await Promise.all(pools.map((pool) => pool.close()));
  const bestPool = (n: number): PoolSample =>
    (scaling.get(n) ?? []).reduce((a, b) => (b.rate > a.rate ? b : a), { rate: 0, cores: 0 });
  const pool1 = bestPool(1).rate;
  const vsOpenssl = (x: number) => (opensslRate ? ratio(x / opensslRate) : 'n/a');

  const rows: string[][] = [
    ['node:crypto, one createHash per nonce (before)', mhs(nodeRate), vsOpenssl(nodeRate), ''],
    ...coreRates.map((c) => [
      `fast core ${c.name}, 1 thread${c.name === fastCoreName() ? ' (in use)' : ''}`,
      mhs(c.rate),
      vsOpenssl(c.rate),
      '',
    ]),
    ['portable scalar fallback, 1 thread', mhs(scalar), vsOpenssl(scalar), ''],
    [
      'openssl speed -evp sha256, 80-byte calls, 1 process',
      opensslRate ? mhs(opensslRate) : 'n/a',
      '1.00x',
      '',
    ],
  ];
  for (const n of sizes) {
    const o = opensslMulti.get(n) ?? [];
    if (n > 1 && o.length && opensslRate) {
      rows.push([
        `openssl speed -multi ${n}`,
        mhs(best(o)),
        vsOpenssl(best(o)),
        ratio(best(o) / opensslRate),
      ]);
    }
  }
  for (const n of sizes) {
    const { rate, cores: got } = bestPool(n);
    rows.push([
      `thread pool, ${n} thread${n > 1 ? 's' : ''} (got ${got.toFixed(2)} cores of CPU, ${(rate / got / 1e6).toFixed(2)} M hashes per CPU-second)`,
      mhs(rate),
      vsOpenssl(rate),
      ratio(rate / pool1),
    ]);
  }
  console.log('| what | hashes/s | vs OpenSSL 1 process | vs 1 thread / process |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);

  const two = bestPool(2).rate / pool1;
  console.log('');
  console.log(`- fast core vs node:crypto: ${ratio(fast / nodeRate)}`);
  if (opensslRate) {
    const perCore = fast / opensslRate;
    console.log(`- target >= 1.0x OpenSSL per core: ${ratio(perCore)} ${perCore >= 1 ? 'met' : 'NOT met'}`);
  } else console.log('- target >= 1.0x OpenSSL per core: not measured (no usable openssl)');
  if (cores >= 2) {
    const o2 = opensslMulti.get(2) ?? [];
    const machine = o2.length && opensslRate ? `; OpenSSL -multi 2 got ${ratio(best(o2) / opensslRate)}` : '';
    console.log(`- target >= 1.8x on 2 cores: ${ratio(two)} ${two >= 1.8 ? 'met' : 'NOT met'}${machine}`);
  } else console.log(`- target >= 1.8x on 2 cores: not measurable on ${cores} core`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
