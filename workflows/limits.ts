// Bounds of a mining request: shared by the tool schemas (gateway) and the workflow's own check.
import type { MineChainInput } from './contract.ts';

export const LIMITS = {
  difficulty: { min: 1, max: 40 },
  blocks: { min: 1, max: 20 },
  dataMaxLength: 256,
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
  return null;
}
