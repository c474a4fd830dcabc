// Picks difficulties from the miner's measured speed, so slow and fast jobs take the intended
// time on any machine. A block at difficulty d takes about 2^d hashes.

import { LIMITS } from '../../workflows/mining/bounds.ts';
import type { ChainResult } from '../../workflows/mining/types.ts';
import { structured } from './mcp-clients.ts';
import { rpcResult } from './mcp-http.ts';
import { eventually } from './temporal.ts';

export interface MinerSpeed {
  hashesPerSecond: number;
}

/** Speed from a finished chain: hashes tried over the time the blocks took. */
export function measuredSpeed(result: { totalHashesTried: number; totalMs: number }): MinerSpeed {
  return { hashesPerSecond: (result.totalHashesTried / Math.max(result.totalMs, 1)) * 1000 };
}

/** The difficulty whose blocks take about `seconds` each on average. */
export function difficultyFor(speed: MinerSpeed, seconds: number): number {
  const d = Math.round(Math.log2(speed.hashesPerSecond * seconds));
  return Math.min(LIMITS.difficulty.max, Math.max(LIMITS.difficulty.min, d));
}

/** Runs a chain through the gateway and follows it to completion, whichever shape the answer takes. */
async function mineToCompletion(url: URL, difficulty: number, blocks: number): Promise<ChainResult> {
  const answer = await rpcResult(url, 'tools/call', {
    name: 'start_mining',
    arguments: { difficulty, blocks },
  });
  let toolResult = answer;
  if (answer.resultType === 'task') {
    const task = await eventually(
      async () => {
        const t = await rpcResult(url, 'tasks/get', { taskId: answer.taskId });
        return t.status === 'working' ? undefined : t;
      },
      60_000,
      'the calibration run to finish',
      100,
    );
    toolResult = task.result as Record<string, unknown>;
  }
  return structured(toolResult).result as ChainResult;
}

/**
 * Measures the warm miner through the gateway: a first short chain warms the worker up (its first
 * block pays for starting the hashing code), then three blocks of about a million hashes each.
 */
export async function calibrate(url: URL): Promise<MinerSpeed> {
  await mineToCompletion(url, 16, 2);
  return measuredSpeed(await mineToCompletion(url, 20, 3));
}
