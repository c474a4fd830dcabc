// The one module the gateway and the workflow share: workflow type, query/signal names, payloads.
// Only defineQuery/defineSignal are imported from the workflow SDK: they are safe outside a workflow.
import { defineQuery, defineSignal } from '@temporalio/workflow';

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

/** An outstanding request for input (an MCP elicitation/create form request). */
export interface InputRequest {
  method: 'elicitation/create';
  params: {
    mode: 'form';
    message: string;
    requestedSchema: {
      type: 'object';
      properties: Record<string, { type: string; title?: string; description?: string }>;
      required?: string[];
    };
  };
}

/** An answer to one input request, keyed like the request. */
export interface InputResponse {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export type MiningPhase = 'mining' | 'awaiting_input' | 'publishing' | 'done';

export interface MiningProgress {
  phase: MiningPhase;
  blocksDone: number;
  blocksTotal: number;
  /** Hashes tried by finished blocks (the block in flight reports through its heartbeat). */
  hashesTried: number;
  /** Index of the block being mined, or null when none is. */
  currentBlock: number | null;
  /** Outstanding input requests by key; empty when nothing is asked. */
  inputRequests: Record<string, InputRequest>;
}

export const progressQuery = defineQuery<MiningProgress>('progress');
export const inputResponsesSignal = defineSignal<[Record<string, InputResponse>]>('inputResponses');

/** Heartbeat details of the mineBlock activity: the last nonce tried. */
export interface MineBlockHeartbeat {
  nonce: number;
}
