// What the gateway knows about one mining run at one moment: the input of every pure mapping
// (task JSON, start/poll JSON). Built from Temporal by temporal-mining.ts; no I/O here.
import type { ChainResult, MineChainInput, MiningProgress } from '../../workflows/contract.ts';

/** A JSON-RPC error object, as carried by a failed task. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** The workflow's progress plus what the block in flight has heartbeated. */
export interface LiveProgress extends MiningProgress {
  /** Last nonce the block in flight reported (its hashes so far are about this + 1). */
  currentBlockNonce?: number;
}

export type ExecutionState =
  /** `progress` is absent when no worker answered the progress query; `note` then says why. */
  | { status: 'running'; progress?: LiveProgress; note?: string }
  | { status: 'completed'; result: ChainResult }
  /**
   * `toolError`: the mining itself refused or gave up (a non-retryable application failure): the
   * tool answered, with an error. Otherwise the run broke (terminated, timed out, retries spent).
   */
  | { status: 'failed'; toolError: boolean; reason: string; error: JsonRpcErrorObject }
  | { status: 'cancelled' };

export interface ExecutionView {
  workflowId: string;
  createdAt: Date;
  lastUpdatedAt: Date;
  /** The arguments the run was started with, when known. */
  input?: MineChainInput;
  state: ExecutionState;
}
