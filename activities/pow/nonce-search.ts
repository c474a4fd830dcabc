// One block's nonce search as the pool runs it: consecutive chunks handed out in increasing order,
// completed out of order, and the completed prefix advanced over (nonce-pool.ts says why). Once a
// chunk finds a nonce, the search's limit and the threads' shared cutoff drop to just above it.

const FIRST_CHUNK = 1 << 14;
/** The largest chunk whatever the thread's speed: about 40 ms of one native thread's work, unloaded. */
const MAX_CHUNK = 1 << 20;

export interface SearchOptions {
  header: Uint8Array;
  difficulty: number;
  from: number;
  /** Exclusive; at most MAX_NONCE + 1. */
  to: number;
  /** Aborting stops the search: `done` rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface NonceSearch {
  /** The smallest nonce in [from, to) meeting the difficulty, or null when there is none. */
  readonly done: Promise<number | null>;
  /** Every nonce in [from, triedBelow) was tried (and, while the search runs, none of them met). */
  readonly triedBelow: number;
}

export interface Chunk {
  from: number;
  to: number;
  /** -2 running, -1 done without a hit, else the nonce found. */
  result: number;
}

export class Search implements NonceSearch {
  readonly done: Promise<number | null>;
  triedBelow: number;
  next: number;
  limit: number;
  chunkSize = FIRST_CHUNK;
  finished = false;
  /** Nonces handed out so far: the pool serves the search with the fewest turn by turn. */
  served = 0;
  readonly chunks: Chunk[] = [];
  readonly cutoff = new Float64Array(new SharedArrayBuffer(8));
  private settle!: { resolve: (n: number | null) => void; reject: (e: unknown) => void };

  constructor(
    readonly header: Uint8Array,
    readonly difficulty: number,
    from: number,
    to: number,
  ) {
    this.triedBelow = from;
    this.next = from;
    this.limit = to;
    this.cutoff[0] = Number.POSITIVE_INFINITY;
    this.done = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  wantsWork(): boolean {
    return !this.finished && this.next < this.limit;
  }

  /** The next chunk, of at most `largest` nonces (the pool sizes chunks by time). */
  takeChunk(largest = MAX_CHUNK): Chunk {
    const chunk: Chunk = {
      from: this.next,
      to: Math.min(this.next + Math.min(this.chunkSize, largest), this.limit),
      result: -2,
    };
    this.next = chunk.to;
    this.served += chunk.to - chunk.from;
    this.chunkSize = Math.min(this.chunkSize * 2, MAX_CHUNK);
    this.chunks.push(chunk);
    return chunk;
  }

  complete(chunk: Chunk, nonce: number): void {
    chunk.result = nonce;
    if (nonce >= 0 && nonce + 1 < this.limit) {
      this.limit = nonce + 1;
      this.cutoff[0] = nonce + 1;
    }
    while (this.chunks.length > 0 && (this.chunks[0] as Chunk).result !== -2) {
      const first = this.chunks.shift() as Chunk;
      if (first.result >= 0) {
        this.finish(first.result);
        return;
      }
      this.triedBelow = first.to;
    }
    if (this.chunks.length === 0 && this.next >= this.limit) this.finish(null);
  }

  finish(result: number | null, error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.cutoff[0] = -1;
    if (error !== undefined) this.settle.reject(error);
    else this.settle.resolve(result);
  }
}
