// The mining workflow's own types: its input, result and progress details. How it talks to the
// gateway (progress query, input signal, tool errors) is the generic contract in ../mcp-contract.ts.
import { defineQuery } from '@temporalio/workflow';
import { type ElicitationRequest, PROGRESS_QUERY } from '../mcp-contract.ts';

// Mining asks people only: its requests are elicitation forms.
export type {
  ElicitationRequest as InputRequest,
  ElicitationResponse,
  InputResponse,
} from '../mcp-contract.ts';

export const MINE_CHAIN_WORKFLOW = 'mineChain';

export interface MineChainInput {
  /** Leading zero bits each block hash must have. */
  difficulty: number;
  /** Number of blocks, mined one after another. */
  blocks: number;
  /** Free text committed into every block. */
  data: string;
  /** Pause for a person's approval before publishing the chain. */
  requireApproval?: boolean;
  /** How long to wait for that approval before giving up (default 24 h). */
  approvalTimeoutMs?: number;
}

/** What became of the chain after mining, when approval was asked for. */
export type Publication =
  | { status: 'published'; ledgerPath: string; approvedNote?: string }
  | { status: 'declined'; action: 'accept' | 'decline' | 'cancel'; note?: string }
  | { status: 'approval_timed_out'; waitedMs: number };

export interface MinedBlock {
  index: number;
  nonce: number;
  hash: string;
  previousHash: string;
  hashesTried: number;
  ms: number;
  /** Activity attempt that found the nonce (1 unless a worker died or failed). */
  attempt: number;
  /** Nonce that attempt started from: non-zero when it resumed from a heartbeat. */
  startNonce: number;
}

export interface ChainResult {
  difficulty: number;
  data: string;
  blocks: MinedBlock[];
  finalHash: string;
  totalHashesTried: number;
  totalMs: number;
  /** Present when approval was asked for. */
  publication?: Publication;
}

type MiningPhase = 'mining' | 'awaiting_input' | 'publishing' | 'done';

export interface MiningProgress {
  phase: MiningPhase;
  blocksDone: number;
  blocksTotal: number;
  /** Hashes tried by finished blocks (the block in flight reports through its heartbeat). */
  hashesTried: number;
  /** Index of the block being mined, or null when none is. */
  currentBlock: number | null;
}

/** The mining progress answer: the contract's fields plus the mining details under `mining`. */
export interface MiningProgressAnswer {
  message?: string;
  progress?: number;
  total?: number;
  inputRequests?: Record<string, ElicitationRequest>;
  mining?: MiningProgress;
}

/** The contract's progress query as mineChain answers it (for clients that know mining). */
export const miningProgressQuery = defineQuery<MiningProgressAnswer>(PROGRESS_QUERY);

/** Heartbeat details of the mineBlock activity: the last nonce tried. */
export interface MineBlockHeartbeat {
  nonce: number;
}
