// start_mining's arguments, bounded by the same LIMITS the workflow enforces, and the workflow
// input they make. Written in zod and served as JSON Schema, like every catalog entry's inputSchema.
import * as z from 'zod/v4';
import type { MineChainInput } from '../../../workflows/contract.ts';
import { LIMITS } from '../../../workflows/limits.ts';
import type { JsonSchema } from '../json-schema.ts';
import { type ApprovalPolicy, needsApproval } from './approval-policy.ts';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 200;

/**
 * The default call: about 2^31 hashes a block, some 40 s each on a two-core worker with the native
 * core (about 70 s with the WebAssembly one), so three blocks outlast the default 20 s wait budget
 * and the demo shows the task / start-poll path. Small difficulties finish inline.
 */
export const DEFAULT_DIFFICULTY = 31;
export const DEFAULT_BLOCKS = 3;

// Strict: an unknown or misspelt argument (say `idempotencyKey`) is refused, not silently dropped.
export const startMiningArgs = z.strictObject({
  difficulty: z
    .int()
    .min(LIMITS.difficulty.min)
    .max(LIMITS.difficulty.max)
    .default(DEFAULT_DIFFICULTY)
    .describe(
      `Leading zero bits each block hash must have (${LIMITS.difficulty.min}-${LIMITS.difficulty.max}, ` +
        `default ${DEFAULT_DIFFICULTY}). Each extra bit doubles the work: about 2^difficulty hashes per block.`,
    ),
  blocks: z
    .int()
    .min(LIMITS.blocks.min)
    .max(LIMITS.blocks.max)
    .default(DEFAULT_BLOCKS)
    .describe(
      `Number of blocks to mine, one after another (${LIMITS.blocks.min}-${LIMITS.blocks.max}, default ${DEFAULT_BLOCKS}).`,
    ),
  data: z
    .string()
    .max(LIMITS.dataMaxLength)
    .optional()
    .describe(`Text committed into every block (at most ${LIMITS.dataMaxLength} characters).`),
  require_approval: z
    .boolean()
    .optional()
    .describe("Pause for a person's approval before publishing the chain."),
  idempotency_key: z
    .string()
    .min(1)
    .max(IDEMPOTENCY_KEY_MAX_LENGTH)
    .optional()
    .describe(
      'Optional key that makes the start safe to retry: a call with the same key and the same arguments ' +
        'returns the task the first call started (or its result) instead of starting a second job. ' +
        `At most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters; a new request needs a new key.`,
    ),
});

export type StartMiningArgs = z.infer<typeof startMiningArgs>;

/** start_mining's inputSchema, as tools/list shows it. */
export function startMiningInputSchema(): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(startMiningArgs, { io: 'input' }) as JsonSchema;
  return { type: 'object', ...schema };
}

export function mineChainInput(args: StartMiningArgs, approval?: ApprovalPolicy): MineChainInput {
  const input: MineChainInput = {
    difficulty: args.difficulty,
    blocks: args.blocks,
    data: args.data ?? '',
    ...(args.require_approval === undefined ? {} : { requireApproval: args.require_approval }),
  };
  if (!approval || !needsApproval(input, approval)) return input;
  return { ...input, requireApproval: true, approvalTimeoutMs: approval.timeoutMs };
}
