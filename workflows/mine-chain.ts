// mineChain: mines `blocks` blocks one after another, each linked to the previous block's hash;
// with requireApproval, then waits for a person's answer before publishing the chain.
import {
  ActivityCancellationType,
  ApplicationFailure,
  condition,
  proxyActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type * as activities from '../activities/index.ts';
import {
  APPROVAL_KEY_PREFIX,
  approvalRequest,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  readApproval,
} from './approval.ts';
import {
  type ChainResult,
  inputResponsesSignal,
  type MineChainInput,
  type MinedBlock,
  type MiningProgress,
  type Publication,
  progressQuery,
} from './contract.ts';
import { InputBook } from './input-book.ts';
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

const { publishChain } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5 },
});

export async function mineChain(input: MineChainInput): Promise<ChainResult> {
  const problem = validateMineChainInput(input);
  if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidMiningParameters');

  const inputs = new InputBook();
  const progress: MiningProgress = {
    phase: 'mining',
    blocksDone: 0,
    blocksTotal: input.blocks,
    hashesTried: 0,
    currentBlock: null,
    inputRequests: {},
  };
  setHandler(progressQuery, () => ({ ...progress, inputRequests: inputs.pending() }));
  setHandler(inputResponsesSignal, (responses) => {
    inputs.receive(responses);
  });

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
  const chain: ChainResult = {
    difficulty: input.difficulty,
    data: input.data,
    blocks,
    finalHash: previousHash,
    totalHashesTried: progress.hashesTried,
    totalMs: blocks.reduce((sum, b) => sum + b.ms, 0),
  };
  if (input.requireApproval) {
    chain.publication = await askToPublish(
      chain,
      inputs,
      progress,
      input.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    );
  }
  progress.phase = 'done';
  setCurrentDetails(`Mined ${blocks.length} blocks; final hash ${previousHash}`);
  return chain;
}

async function askToPublish(
  chain: ChainResult,
  inputs: InputBook,
  progress: MiningProgress,
  timeoutMs: number,
): Promise<Publication> {
  progress.phase = 'awaiting_input';
  setCurrentDetails(`Waiting for approval to publish; final hash ${chain.finalHash}`);
  const startedAt = Date.now(); // workflow time: deterministic
  let retryReason: string | undefined;
  for (;;) {
    const key = inputs.ask(APPROVAL_KEY_PREFIX, approvalRequest(chain, retryReason));
    const remaining = timeoutMs - (Date.now() - startedAt);
    if (remaining > 0) await condition(() => inputs.answer(key) !== undefined, remaining);
    const response = inputs.answer(key);
    if (!response) {
      inputs.supersede(key);
      return { status: 'approval_timed_out', waitedMs: timeoutMs };
    }
    const decision = readApproval(response);
    if (decision.kind === 'declined')
      return { status: 'declined', action: decision.action, note: decision.note };
    if (decision.kind === 'approved') {
      progress.phase = 'publishing';
      setCurrentDetails(`Publishing; final hash ${chain.finalHash}`);
      const { ledgerPath } = await publishChain({ chain, approvedNote: decision.note });
      return { status: 'published', ledgerPath, approvedNote: decision.note };
    }
    retryReason = decision.reason;
  }
}
