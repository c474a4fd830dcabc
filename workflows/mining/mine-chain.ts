// mineChain: mines `blocks` blocks one after another, each linked to the previous block's hash;
// with requireApproval, then waits for a person's answer before publishing the chain.
import {
  ActivityCancellationType,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import { McpTool, toolError } from 'temporal-mcp-gateway/workflow';
import type * as activities from '../../activities/index.ts';
import {
  APPROVAL_KEY_PREFIX,
  approvalRequest,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  readApproval,
} from './approval.ts';
import { validateMineChainInput } from './bounds.ts';
import { GENESIS_HASH } from './genesis.ts';
import type { ChainResult, MineChainInput, MinedBlock, MiningProgress, Publication } from './types.ts';

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
  if (problem) throw toolError(problem);

  const progress: MiningProgress = {
    phase: 'mining',
    blocksDone: 0,
    blocksTotal: input.blocks,
    hashesTried: 0,
    currentBlock: null,
  };
  // The contract's fields for any client; the mining details for the gateway's mining presentation.
  const tool = new McpTool(() => ({ mining: { ...progress } }));
  tool.report({ progress: 0, total: input.blocks });

  const blocks: MinedBlock[] = [];
  let previousHash = GENESIS_HASH;
  for (let index = 0; index < input.blocks; index++) {
    progress.currentBlock = index;
    tool.report({
      message: `Mining block ${index + 1} of ${input.blocks} at difficulty ${input.difficulty}`,
    });
    const block = await mineOneBlock({ previousHash, index, data: input.data, difficulty: input.difficulty });
    blocks.push(block);
    previousHash = block.hash;
    progress.blocksDone = blocks.length;
    progress.hashesTried += block.hashesTried;
    tool.report({ progress: blocks.length });
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
      tool,
      progress,
      input.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    );
  }
  progress.phase = 'done';
  tool.report({ message: `Mined ${blocks.length} blocks; final hash ${previousHash}` });
  return chain;
}

function mineOneBlock(request: Parameters<typeof mineBlock>[0]): Promise<MinedBlock> {
  return mineBlock(request).catch((err: unknown) => {
    // Cancelled while the block's worker was gone, the block ends by its heartbeat timeout: the
    // run still ends cancelled, as it was asked to.
    if (CancellationScope.current().consideredCancelled && !isCancellation(err))
      throw new CancelledFailure('cancelled while the block had no worker', [], err as Error);
    throw err;
  });
}

async function askToPublish(
  chain: ChainResult,
  tool: McpTool,
  progress: MiningProgress,
  timeoutMs: number,
): Promise<Publication> {
  progress.phase = 'awaiting_input';
  tool.report({ message: `Waiting for approval to publish; final hash ${chain.finalHash}` });
  const startedAt = Date.now(); // workflow time: deterministic
  let retryReason: string | undefined;
  for (;;) {
    const remaining = Math.max(0, timeoutMs - (Date.now() - startedAt));
    const response = await tool.ask(APPROVAL_KEY_PREFIX, approvalRequest(chain, retryReason), remaining);
    if (!response) return { status: 'approval_timed_out', waitedMs: timeoutMs };
    const decision = readApproval(response);
    if (decision.kind === 'declined')
      return { status: 'declined', action: decision.action, note: decision.note };
    if (decision.kind === 'approved') {
      progress.phase = 'publishing';
      tool.report({ message: `Publishing; final hash ${chain.finalHash}` });
      const { ledgerPath } = await publishChain({ chain, approvedNote: decision.note });
      return { status: 'published', ledgerPath, approvedNote: decision.note };
    }
    retryReason = decision.reason;
  }
}
