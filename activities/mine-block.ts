// The mineBlock activity: searches nonces on the process's thread pool (one block spread over the
// cores, same answer as a single-threaded search), heartbeating about once a second the last nonce
// below which every nonce was tried, so a retry resumes there and a cancellation (it arrives with a
// heartbeat response) is noticed within about a second. MINER_THREADS=0 searches on this thread.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { MineBlockHeartbeat, MinedBlock } from '../workflows/mining/types.ts';
import {
  type BlockSpec,
  blockHeader,
  hashHeader,
  InvalidMiningParameters,
  MAX_NONCE,
  searchNonces,
} from './pow/block.ts';
import { defaultThreadCount, sharedNoncePool } from './pow/nonce-pool.ts';

/** Nonces per slice when searching on the activity's own thread: tens of milliseconds. */
const SLICE = 500_000;
const HEARTBEAT_EVERY_MS = 1_000;

export async function mineBlock(spec: BlockSpec): Promise<MinedBlock> {
  const ctx = Context.current();
  let header: Buffer;
  try {
    header = blockHeader(spec);
  } catch (err) {
    if (err instanceof InvalidMiningParameters) {
      throw ApplicationFailure.nonRetryable(err.message, 'InvalidMiningParameters');
    }
    throw err;
  }
  const resumed = ctx.info.heartbeatDetails as MineBlockHeartbeat | undefined;
  const startNonce = typeof resumed?.nonce === 'number' ? resumed.nonce + 1 : 0;
  const started = Date.now();
  const done = (nonce: number): MinedBlock => {
    ctx.heartbeat({ nonce } satisfies MineBlockHeartbeat);
    return {
      index: spec.index,
      nonce,
      hash: hashHeader(header, nonce),
      previousHash: spec.previousHash,
      hashesTried: nonce + 1,
      ms: Date.now() - started,
      attempt: ctx.info.attempt,
      startNonce,
    };
  };
  // A heartbeat names a nonce already tried: nonce 0 is tried here before the first one.
  let from = startNonce;
  if (from === 0) {
    if (searchNonces(header, spec.difficulty, 0, 1)) return done(0);
    from = 1;
  }
  ctx.heartbeat({ nonce: from - 1 } satisfies MineBlockHeartbeat);

  const nonce =
    defaultThreadCount() === 0
      ? await searchHere(ctx, header, spec.difficulty, from)
      : await searchOnPool(ctx, header, spec.difficulty, from);
  if (nonce === null) {
    throw ApplicationFailure.nonRetryable(`no nonce up to ${MAX_NONCE} meets difficulty ${spec.difficulty}`);
  }
  return done(nonce);
}

async function searchOnPool(
  ctx: Context,
  header: Buffer,
  difficulty: number,
  from: number,
): Promise<number | null> {
  const search = sharedNoncePool().search({
    header,
    difficulty,
    from,
    to: MAX_NONCE + 1,
    signal: ctx.cancellationSignal,
  });
  const beat = setInterval(() => {
    ctx.heartbeat({ nonce: search.triedBelow - 1 } satisfies MineBlockHeartbeat);
  }, HEARTBEAT_EVERY_MS);
  try {
    return await search.done;
  } finally {
    clearInterval(beat);
  }
}

async function searchHere(
  ctx: Context,
  header: Buffer,
  difficulty: number,
  from: number,
): Promise<number | null> {
  let lastBeat = Date.now();
  for (let nonce = from; nonce <= MAX_NONCE; ) {
    const to = Math.min(nonce + SLICE, MAX_NONCE + 1);
    const found = searchNonces(header, difficulty, nonce, to);
    if (found) return found.nonce;
    nonce = to;
    const now = Date.now();
    if (now - lastBeat >= HEARTBEAT_EVERY_MS) {
      ctx.heartbeat({ nonce: nonce - 1 } satisfies MineBlockHeartbeat);
      lastBeat = now;
    }
    // Let the SDK deliver a cancellation (it arrives with a heartbeat response).
    await yieldToEventLoop();
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
  }
  return null;
}
