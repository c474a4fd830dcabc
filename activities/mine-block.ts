// The mineBlock activity: searches nonces in slices, heartbeating the last nonce tried about once
// a second, so a retry resumes there and a cancellation is noticed within about a second.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { MineBlockHeartbeat, MinedBlock } from '../workflows/contract.ts';
import { type BlockSpec, blockHeader, InvalidMiningParameters, MAX_NONCE, searchNonces } from './pow.ts';

const SLICE = 20_000;
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
  let lastBeat = started;
  let nonce = startNonce;
  ctx.heartbeat({ nonce: Math.max(startNonce - 1, 0) } satisfies MineBlockHeartbeat);
  while (nonce <= MAX_NONCE) {
    const to = Math.min(nonce + SLICE, MAX_NONCE + 1);
    const found = searchNonces(header, spec.difficulty, nonce, to);
    if (found) {
      ctx.heartbeat({ nonce: found.nonce } satisfies MineBlockHeartbeat);
      return {
        index: spec.index,
        nonce: found.nonce,
        hash: found.hash,
        previousHash: spec.previousHash,
        hashesTried: found.nonce + 1,
        ms: Date.now() - started,
        attempt: ctx.info.attempt,
        startNonce,
      };
    }
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
  throw ApplicationFailure.nonRetryable(`no nonce up to ${MAX_NONCE} meets difficulty ${spec.difficulty}`);
}
