// What the gateway knows about one run at one moment: the input of every pure mapping (task JSON,
// start/poll JSON). Built from Temporal by backend.ts; no I/O here.
import type { ToolProgress } from '../../workflows/mcp-contract.ts';

/** The progress query's answer: the contract's fields, and whatever else the workflow adds. */
export type ProgressAnswer = ToolProgress & Record<string, unknown>;

export type ExecutionState =
  /**
   * `progress` is absent when the tool has no progress query or no worker answered it (`note` then
   * says why); `heartbeat` is the latest heartbeat details of the activity in flight, if any.
   */
  | { status: 'running'; progress?: ProgressAnswer; heartbeat?: unknown; note?: string }
  | { status: 'completed'; result: unknown }
  /**
   * `toolError`: the workflow failed with an McpToolError: the tool answered, with an error, and
   * `message` is its message. Otherwise the run broke (failed, terminated, timed out) and `message`
   * says how, after the run's name: "was terminated: operator".
   */
  | { status: 'failed'; toolError: boolean; reason: string; message: string }
  | { status: 'cancelled' };

export type RunningState = Extract<ExecutionState, { status: 'running' }>;

export interface ExecutionView {
  workflowId: string;
  /** The catalog tool that started the run. */
  tool: string;
  createdAt: Date;
  lastUpdatedAt: Date;
  /** The tool arguments the run was started with (defaults applied). */
  arguments: Record<string, unknown>;
  state: ExecutionState;
}
