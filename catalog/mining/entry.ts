// start_mining, the built-in catalog's entry (catalog.ts): the mineChain workflow (workflows/mining/)
// served as a durable tool, read by the gateway like any catalog entry (the gateway adds the
// companions and the texts on following a long call), with hooks of its own: how its runs read
// (presentation.ts), its Web UI summary, and the approval policy that turns its arguments into the
// workflow's input. Of the gateway it uses gateway/hooks.ts only; the worker does not bundle it.
import * as z from 'zod/v4';
import { integerSetting } from '../../common/settings.ts';
import {
  type CatalogDefaults,
  type CatalogEntry,
  type CatalogTool,
  catalogTool,
  jsonSchemaOf,
  type ToolHooks,
} from '../../gateway/hooks.ts';
import { INPUT_SIGNAL, PROGRESS_QUERY } from '../../workflows/mcp-contract.ts';
import { LIMITS } from '../../workflows/mining/bounds.ts';
import { type ChainResult, MINE_CHAIN_WORKFLOW, type MineChainInput } from '../../workflows/mining/types.ts';
import { miningPresentation } from './presentation.ts';

// ---- when a run must wait for a person --------------------------------------------------------------

export interface ApprovalPolicy {
  /** Estimated hashes above which approval is always asked; 0 turns the threshold off. */
  thresholdHashes: number;
  /** How long a run waits for the answer before giving up. */
  timeoutMs: number;
}

function estimatedHashes(input: Pick<MineChainInput, 'difficulty' | 'blocks'>): number {
  return input.blocks * 2 ** input.difficulty;
}

function needsApproval(input: MineChainInput, policy: ApprovalPolicy): boolean {
  if (input.requireApproval) return true;
  return policy.thresholdHashes > 0 && estimatedHashes(input) > policy.thresholdHashes;
}

const DEFAULT_MCP_APPROVAL_TIMEOUT_MS = 60 * 60 * 1000;

/** The policy from MCP_APPROVAL_THRESHOLD_HASHES and MCP_APPROVAL_TIMEOUT_MS; throws naming a bad one. */
function approvalPolicyFromEnv(env: NodeJS.ProcessEnv): ApprovalPolicy {
  return {
    // 0 (the default) asks for approval only when the caller sets require_approval.
    thresholdHashes: integerSetting(env, 'MCP_APPROVAL_THRESHOLD_HASHES', {
      fallback: 0,
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    }),
    timeoutMs: integerSetting(env, 'MCP_APPROVAL_TIMEOUT_MS', {
      fallback: DEFAULT_MCP_APPROVAL_TIMEOUT_MS,
      ...LIMITS.approvalTimeoutMs,
    }),
  };
}

// ---- arguments ---------------------------------------------------------------------------------------

const IDEMPOTENCY_KEY_MAX_LENGTH = 200;

/**
 * The default call: about 2^31 hashes a block, some 40 s each on a two-core worker with the native
 * core (about 70 s with the WebAssembly one), so three blocks outlast the default 20 s wait budget
 * and the demo shows the task / start-poll path. Small difficulties finish inline.
 */
export const DEFAULT_DIFFICULTY = 31;
export const DEFAULT_BLOCKS = 3;

// Strict: an unknown or misspelt argument (say `idempotencyKey`) is refused, not silently dropped.
const startMiningArgs = z.strictObject({
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

// ---- the result -------------------------------------------------------------------------------------

const block = z.object({
  index: z.int(),
  nonce: z.int(),
  hash: z.string(),
  previousHash: z.string(),
  hashesTried: z.int(),
  ms: z.int(),
  attempt: z.int(),
  startNonce: z.int(),
});

const publication = z.union([
  z.object({ status: z.literal('published'), ledgerPath: z.string(), approvedNote: z.string().optional() }),
  z.object({
    status: z.literal('declined'),
    action: z.enum(['accept', 'decline', 'cancel']),
    note: z.string().optional(),
  }),
  z.object({ status: z.literal('approval_timed_out'), waitedMs: z.number() }),
]);

const chainResult = z.object({
  difficulty: z.int(),
  data: z.string(),
  blocks: z.array(block),
  finalHash: z.string(),
  totalHashesTried: z.int(),
  totalMs: z.int(),
  publication: publication.optional(),
});

// Fails to compile when the workflow's result type and this schema drift apart.
const _sameShape: z.infer<typeof chainResult> = {} as ChainResult;

// ---- the entry -------------------------------------------------------------------------------------

/** Mining task ids start with `mine-`. */
export const MINING_ID_PREFIX = 'mine';

/** The mining hooks under an approval policy. */
function miningHooks(approval?: ApprovalPolicy): ToolHooks {
  return {
    ...miningPresentation(),
    workflowInput: (args) => mineChainInput(args as StartMiningArgs, approval),
    summary(tool, args, principal) {
      const input = mineChainInput(args as StartMiningArgs, approval);
      const approvalNote = input.requireApproval ? ', approval required' : '';
      return `${tool}: ${input.blocks} block(s) at difficulty ${input.difficulty}${approvalNote} for ${principal}`;
    },
  };
}

/** The catalog entry of start_mining, its hooks bound to the approval policy `env` sets. */
export function miningEntry(env: NodeJS.ProcessEnv = {}): CatalogEntry & { hooks: ToolHooks } {
  return {
    name: 'start_mining',
    title: 'Start mining a proof-of-work chain',
    description:
      'Start mining a proof-of-work chain of `blocks` blocks at `difficulty` leading zero bits. ' +
      "With `require_approval` (or for very large jobs) the run pauses after mining for a person's approval " +
      'before it publishes the chain.',
    workflow: MINE_CHAIN_WORKFLOW,
    inputSchema: { type: 'object', ...jsonSchemaOf(startMiningArgs, 'input') },
    outputSchema: jsonSchemaOf(chainResult),
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    idempotencyKeyArgument: 'idempotency_key',
    progressQuery: PROGRESS_QUERY,
    progressForm: 'published',
    inputSignal: INPUT_SIGNAL,
    companions: { result: 'get_mining_result', cancel: 'cancel_mining', respond: 'respond_to_mining' },
    idPrefix: MINING_ID_PREFIX,
    hooks: miningHooks(approvalPolicyFromEnv(env)),
  };
}

/** start_mining as the gateway serves it, under `approval` (for tests and the benchmark). */
export function miningTool(defaults: CatalogDefaults, approval?: ApprovalPolicy): CatalogTool {
  return catalogTool({ ...miningEntry(), hooks: miningHooks(approval) }, defaults);
}
