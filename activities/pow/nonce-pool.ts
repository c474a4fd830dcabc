// Spreads one block's nonce search over worker threads, deterministically: the answer is the
// smallest valid nonce, the same one a single-threaded search from `from` finds.
//
// A search is cut into consecutive chunks handed out in increasing order to whichever thread is
// free (chunks grow from small to large, so easy blocks finish at once and hard ones pay little
// messaging). Chunks complete out of order; the search keeps them in order and advances over the
// completed prefix: `triedBelow` is the end of that prefix (every nonce below it was tried), and
// the search ends when the first chunk of the prefix that found a nonce is reached. Once some
// chunk finds a nonce, nothing above it is handed out and running chunks above it stop.
//
// Searches share the threads in turn, not in arrival order: a free thread takes the next chunk of
// the search served the fewest nonces, and a search that arrives starts level with the least
// served, so an easy block arriving behind hard ones is taken by the next thread to free. Chunks
// are sized by time (CHUNK_MS at the threads' measured speed), so that wait is a chunk's, on any CPU.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { InvalidMiningParameters, MAX_DIFFICULTY, MAX_NONCE } from './block.ts';
import { minerNice } from './miner-priority.ts';
import { type Chunk, type NonceSearch, Search, type SearchOptions } from './nonce-search.ts';
import type { ScanReply, ScanTask } from './nonce-worker.ts';

/**
 * The thread's entry is TypeScript, like the rest of the project: it is loaded through tsx's
 * loader, registered inside the new thread (threads do not inherit the parent's loader hooks).
 */
const WORKER_URL = new URL('./nonce-worker.ts', import.meta.url).href;
const BOOTSTRAP = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
  .then((api) => { api.register(); return import(${JSON.stringify(WORKER_URL)}); })`;
/** Threads that die before any reply, in a row, before the pool gives up respawning. */
const MAX_DEATHS_IN_A_ROW = 3;

interface Task {
  id: number;
  search: Search;
  chunk: Chunk;
}

interface Slot {
  worker: Worker;
  /** Sent and not answered yet, oldest first (a thread answers in order). */
  tasks: Task[];
}

/**
 * Chunks queued per thread: with two, a thread starts its next chunk the moment it finishes one,
 * without waiting for this (possibly busy) event loop to answer.
 */
const QUEUE_DEPTH = 2;
/** How long a chunk takes a thread, about: what a search arriving waits for a thread to free. */
const CHUNK_MS = 10;
/** The smallest chunk sized by time (a thread slowed to a crawl still makes progress per message). */
const SMALLEST_TIMED_CHUNK = 1 << 12;

export class NoncePool {
  private readonly slots: Slot[] = [];
  private searches: Search[] = [];
  private nextTaskId = 1;
  private closed = false;
  private deathsInARow = 0;
  private broken?: Error;
  /** One thread's nonces per millisecond, as its last chunks took them (unknown before the first). */
  private noncesPerMs?: number;

  private readonly nice = minerNice();

  constructor(readonly size: number = defaultThreadCount()) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`thread count must be >= 1, got ${size}`);
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(BOOTSTRAP, { eval: true, workerData: { nice: this.nice } });
    const slot: Slot = { worker, tasks: [] };
    worker.unref();
    worker.on('message', (reply: ScanReply) => this.onReply(slot, reply));
    worker.on('error', (err) => this.onDeath(slot, err));
    worker.on('exit', (code) => this.onDeath(slot, new Error(`nonce thread exited with code ${code}`)));
    return slot;
  }

  search(options: SearchOptions): NonceSearch {
    const { header, difficulty, from, to, signal } = options;
    if (this.closed) throw new Error('nonce pool is closed');
    if (this.broken) throw this.broken;
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || to > MAX_NONCE + 1) {
      throw new InvalidMiningParameters(`bad nonce range [${from}, ${to})`);
    }
    if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > MAX_DIFFICULTY) {
      throw new InvalidMiningParameters(`difficulty must be an integer from 0 to ${MAX_DIFFICULTY}`);
    }
    const search = new Search(Uint8Array.from(header), difficulty, from, to);
    if (from === to) {
      search.finish(null);
      return search;
    }
    if (signal?.aborted) {
      search.finish(null, signal.reason);
      return search;
    }
    const onAbort = () => {
      search.finish(null, signal?.reason);
      this.forget(search);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    search.done.then(
      () => signal?.removeEventListener('abort', onAbort),
      () => signal?.removeEventListener('abort', onAbort),
    );
    // Level with the least served of those waiting: owed no backlog, and next in turn.
    search.served = this.nextInTurn()?.served ?? 0;
    this.searches.push(search);
    this.dispatch();
    return search;
  }

  /** Terminates the threads; searches still running reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const search of this.searches) search.finish(null, new Error('nonce pool closed'));
    this.searches = [];
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private forget(search: Search): void {
    this.searches = this.searches.filter((s) => s !== search);
  }

  /** Tops up every thread's queue with the next chunks of the searches, in turn. */
  private dispatch(): void {
    this.searches = this.searches.filter((s) => !s.finished);
    for (let depth = 1; depth <= QUEUE_DEPTH; depth++) {
      for (const slot of this.slots) {
        if (slot.tasks.length >= depth) continue;
        const next = this.nextInTurn();
        if (!next) return;
        this.send(slot, next);
      }
    }
  }

  /** The search wanting work that was served the fewest nonces; on a tie, the latest to arrive. */
  private nextInTurn(): Search | undefined {
    let next: Search | undefined;
    for (const search of this.searches) {
      if (search.wantsWork() && (!next || search.served <= next.served)) next = search;
    }
    return next;
  }

  /** The largest chunk a thread takes about CHUNK_MS to scan (any size until it was measured). */
  private largestChunk(): number | undefined {
    if (this.noncesPerMs === undefined) return undefined;
    return Math.max(SMALLEST_TIMED_CHUNK, Math.floor(this.noncesPerMs * CHUNK_MS));
  }

  private send(slot: Slot, search: Search): void {
    const chunk = search.takeChunk(this.largestChunk());
    const id = this.nextTaskId++;
    slot.tasks.push({ id, search, chunk });
    const task: ScanTask = {
      id,
      header: search.header,
      difficulty: search.difficulty,
      from: chunk.from,
      to: chunk.to,
      cutoff: search.cutoff,
    };
    slot.worker.ref();
    slot.worker.postMessage(task);
  }

  private onReply(slot: Slot, reply: ScanReply): void {
    const task = slot.tasks.find((t) => t.id === reply.id);
    if (!task) return;
    slot.tasks = slot.tasks.filter((t) => t !== task);
    if (slot.tasks.length === 0) slot.worker.unref();
    this.deathsInARow = 0;
    const { search, chunk } = task;
    if ('error' in reply) {
      search.finish(null, new InvalidMiningParameters(reply.error));
    } else if (!reply.aborted) {
      this.timeChunk(chunk, reply);
      // A chunk only stops early when it lies above a nonce already found: it is not needed.
      if (!search.finished) search.complete(chunk, reply.nonce);
    }
    if (search.finished) this.forget(search);
    this.dispatch();
  }

  /** Follows the threads' speed from a chunk scanned to its end (one that found a nonce stopped early). */
  private timeChunk(chunk: Chunk, reply: { nonce: number; ms: number }): void {
    const scanned = (reply.nonce >= 0 ? reply.nonce + 1 : chunk.to) - chunk.from;
    if (reply.ms < 1) return; // too short to time
    const rate = scanned / reply.ms;
    this.noncesPerMs = this.noncesPerMs === undefined ? rate : 0.7 * this.noncesPerMs + 0.3 * rate;
  }

  private onDeath(slot: Slot, err: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    const tasks = slot.tasks;
    slot.tasks = [];
    if (this.closed) return;
    for (const task of tasks) {
      task.search.finish(null, err);
      this.forget(task.search);
    }
    slot.worker.removeAllListeners();
    slot.worker.terminate().catch(() => {});
    if (++this.deathsInARow > MAX_DEATHS_IN_A_ROW) {
      this.broken = new Error(`nonce threads keep dying: ${err.message}`);
      for (const search of this.searches) search.finish(null, this.broken);
      this.searches = [];
      return;
    }
    this.slots[index] = this.spawn();
    this.dispatch();
  }
}

/** MINER_THREADS when set (0 means search on the activity's own thread), else one per core. */
export function defaultThreadCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MINER_THREADS;
  if (raw === undefined || raw === '') return availableParallelism();
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`MINER_THREADS must be an integer >= 0, got "${raw}"`);
  return value;
}

let shared: NoncePool | undefined;

/** The process's pool, started on first use. */
export function sharedNoncePool(): NoncePool {
  if (!shared) shared = new NoncePool();
  return shared;
}

/** Stops the process's pool, if one was started (the worker calls this on shutdown). */
export async function closeSharedNoncePool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
