// What the MCP handlers need from the durable engine. The Temporal implementation is
// temporal-mining.ts; handlers depend only on this interface.
import type { InputResponse, MineChainInput } from '../../workflows/contract.ts';
import type { RequestOrigin } from '../mcp/request-origin.ts';
import type { ExecutionState, ExecutionView } from './execution.ts';

/** Who is calling: every task operation is scoped to the principal that started the task. */
export interface Caller {
  principal: string;
  /** The MCP client and protocol revision of the request, when known (shown in the Web UI). */
  origin?: RequestOrigin;
}

export interface StartRequest {
  input: MineChainInput;
  /** The tool and its arguments as the client sent them, kept with the run. */
  tool: string;
  arguments: Record<string, unknown>;
  /**
   * Makes the start idempotent: the same (caller, tool, key) names the same run, which a retried
   * start returns; the same key with other arguments is an invalid-params error.
   */
  idempotencyKey?: string;
}

export interface StartedRun {
  workflowId: string;
  /** When this call created the run; absent when a keyed start answered a run already there. */
  createdAt?: Date;
}

export type WaitOutcome = { kind: 'closed'; state: ExecutionState } | { kind: 'running' };

export interface MiningBackend {
  /** Starts a run; resolves once the start is durable (a view of it would succeed). */
  start(request: StartRequest, caller: Caller): Promise<StartedRun>;
  /**
   * Waits for the run to close, at most `budgetMs` (or until `signal` aborts): resolves the moment
   * it closes, or with `running` when the budget ends first. Leaves no wait behind.
   */
  wait(workflowId: string, budgetMs: number, signal?: AbortSignal): Promise<WaitOutcome>;
  /**
   * The run as the caller may see it; undefined when unknown, expired or another caller's.
   * `progress: false` skips the progress query (a running run then has neither progress nor note).
   */
  view(
    workflowId: string,
    caller: Caller,
    options?: { progress?: boolean },
  ): Promise<ExecutionView | undefined>;
  /** Requests cancellation; false when there is no such run for this caller. No-op once closed. */
  cancel(workflowId: string, caller: Caller): Promise<boolean>;
  /** Forwards input responses to the run; false when there is no such run for this caller. */
  sendInput(workflowId: string, caller: Caller, responses: Record<string, InputResponse>): Promise<boolean>;
  /** Resolves when the engine answers within `timeoutMs`; rejects otherwise. */
  ping(timeoutMs: number): Promise<void>;
}
