// One thread of the nonce pool: scans the nonce ranges it is sent on the fast path, checking
// between slices whether its search was stopped (the shared cutoff fell to or below the range).
import { parentPort, workerData } from 'node:worker_threads';
import { NonceScanner } from './block.ts';
import { lowerThisThread } from './miner-priority.ts';

export interface ScanTask {
  id: number;
  header: Uint8Array;
  difficulty: number;
  from: number;
  to: number;
  /** Float64Array over shared memory: [0] is the cutoff; the task stops when from >= cutoff. */
  cutoff: Float64Array;
}

export type ScanReply =
  /** `ms`: how long the scan took, from which the pool sizes chunks by time. */
  | { id: number; nonce: number; aborted: false; ms: number }
  | { id: number; aborted: true }
  | { id: number; error: string };

/** Nonces between cutoff checks: a few milliseconds of work. */
const SLICE = 1 << 16;

function run(task: ScanTask): ScanReply {
  const started = performance.now();
  const scanner = new NonceScanner(task.header, task.difficulty);
  for (let n = task.from; n < task.to; ) {
    if (task.from >= (task.cutoff[0] as number)) return { id: task.id, aborted: true };
    const end = Math.min(n + SLICE, task.to);
    const nonce = scanner.scan(n, end);
    if (nonce >= 0) return { id: task.id, nonce, aborted: false, ms: performance.now() - started };
    n = end;
  }
  return { id: task.id, nonce: -1, aborted: false, ms: performance.now() - started };
}

const port = parentPort;
if (port) {
  lowerThisThread((workerData as { nice?: number } | undefined)?.nice ?? 0);
  port.on('message', (task: ScanTask) => {
    let reply: ScanReply;
    try {
      reply = run(task);
    } catch (err) {
      reply = { id: task.id, error: (err as Error).message };
    }
    port.postMessage(reply);
  });
}
