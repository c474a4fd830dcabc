// Bounds of a mining request: shared by start_mining's argument schema (tool.ts) and the workflow's own check.
import type { MineChainInput } from './types.ts';

export const LIMITS = {
  difficulty: { min: 1, max: 40 },
  blocks: { min: 1, max: 20 },
  dataMaxLength: 256,
  approvalTimeoutMs: { min: 1_000, max: 7 * 24 * 60 * 60 * 1000 },
} as const;

/** Returns a message naming the first bad field, or null when the input is acceptable. */
export function validateMineChainInput(input: MineChainInput): string | null {
  const { difficulty, blocks } = LIMITS;
  if (
    !Number.isInteger(input.difficulty) ||
    input.difficulty < difficulty.min ||
    input.difficulty > difficulty.max
  ) {
    return `difficulty must be an integer from ${difficulty.min} to ${difficulty.max}`;
  }
  if (!Number.isInteger(input.blocks) || input.blocks < blocks.min || input.blocks > blocks.max) {
    return `blocks must be an integer from ${blocks.min} to ${blocks.max}`;
  }
  if (typeof input.data !== 'string' || input.data.length > LIMITS.dataMaxLength) {
    return `data must be a string of at most ${LIMITS.dataMaxLength} characters`;
  }
  const timeout = input.approvalTimeoutMs;
  const { approvalTimeoutMs: bounds } = LIMITS;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < bounds.min || timeout > bounds.max)) {
    return `approvalTimeoutMs must be an integer from ${bounds.min} to ${bounds.max}`;
  }
  return null;
}
