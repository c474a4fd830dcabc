// mineChain: mines `blocks` blocks one after another, each linked to the previous block's hash.
import {
  ActivityCancellationType,
  ApplicationFailure,
  proxyActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type * as activities from '../activities/index.ts';
import {
  type ChainResult,
  type MineChainInput,
  type MinedBlock,
  type MiningProgress,
  progressQuery,
} from './contract.ts';
import { validateMineChainInput } from './limits.ts';

const GENESIS_HASH = '0'.repeat(64);

const { mineBlock } = proxyActivities<typeof activities>({
  // Heartbeats come about once a second: after 10 s of silence the worker is presumed dead and
  // the block is retried on another one, resuming from the last heartbeat's nonce.
  heartbeatTimeout: '10s',
  startToCloseTimeout: '2h',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 10 },
  // The workflow ends Canceled only once the activity has really stopped.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

export async function mineChain(input: MineChainInput): Promise<ChainResult> {
  const problem = validateMineChainInput(input);
  if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidMiningParameters');

  const progress: MiningProgress = {
    phase: 'mining',
    blocksDone: 0,
    blocksTotal: input.blocks,
    hashesTried: 0,
    currentBlock: null,
    inputRequests: {},
  };
  setHandler(progressQuery, () => progress);

  const blocks: MinedBlock[] = [];
  let previousHash = GENESIS_HASH;
  for (let index = 0; index < input.blocks; index++) {
    progress.currentBlock = index;
    setCurrentDetails(`Mining block ${index + 1} of ${input.blocks} at difficulty ${input.difficulty}`);
    const block = await mineBlock({ previousHash, index, data: input.data, difficulty: input.difficulty });
    blocks.push(block);
    previousHash = block.hash;
    progress.blocksDone = blocks.length;
    progress.hashesTried += block.hashesTried;
  }
  progress.currentBlock = null;
  progress.phase = 'done';
  setCurrentDetails(`Mined ${blocks.length} blocks; final hash ${previousHash}`);
  return {
    difficulty: input.difficulty,
    data: input.data,
    blocks,
    finalHash: previousHash,
    totalHashesTried: progress.hashesTried,
    totalMs: blocks.reduce((sum, b) => sum + b.ms, 0),
  };
}
