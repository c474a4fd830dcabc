// The miner's threads run at a lower scheduling priority than everything else on the machine (the
// gateway, the Temporal server, the worker's own event loop), so a host whose cores the miner
// saturates still answers calls: the kernel gives the cores to them first. On Linux the nice value
// is per thread, so each nonce thread lowers only itself.
import { getPriority, setPriority } from 'node:os';

/** MINER_NICE by default: 10 of the 0 (normal) to 19 (lowest) range. */
const DEFAULT_MINER_NICE = 10;

/** MINER_NICE: the nice value the nonce threads take (0 leaves them at the process's own). */
export function minerNice(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MINER_NICE?.trim();
  if (!raw) return DEFAULT_MINER_NICE;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 19)
    throw new Error(`MINER_NICE must be an integer from 0 to 19, got "${raw}"`);
  return value;
}

/**
 * Lowers the calling thread to `nice`, never raising it (that needs privileges): a thread already
 * nicer stays as it is. Where the platform refuses, the thread runs at its own priority.
 */
export function lowerThisThread(nice: number): void {
  try {
    if (nice > getPriority(0)) setPriority(0, nice);
  } catch {
    // Not every platform lets a thread set its own priority; mining still works.
  }
}
