// When a mining run must wait for a person before publishing: when the caller asks, or when its
// estimated work (about 2^difficulty hashes per block) exceeds the configured threshold.
import type { MineChainInput } from '../../../workflows/contract.ts';

export interface ApprovalPolicy {
  /** Estimated hashes above which approval is always asked; 0 turns the threshold off. */
  thresholdHashes: number;
  /** How long a run waits for the answer before giving up. */
  timeoutMs: number;
}

export function estimatedHashes(input: Pick<MineChainInput, 'difficulty' | 'blocks'>): number {
  return input.blocks * 2 ** input.difficulty;
}

export function needsApproval(input: MineChainInput, policy: ApprovalPolicy): boolean {
  if (input.requireApproval) return true;
  return policy.thresholdHashes > 0 && estimatedHashes(input) > policy.thresholdHashes;
}
