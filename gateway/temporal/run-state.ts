// What the gateway knows of a run at one moment (the input of every answer shape), and the names
// of the one failure the gateway gives a run itself: a result too large for Temporal. Types and
// constants only: wait.ts reads a run's outcome, view.ts what describe says.
import type { ToolProgress } from '../../workflows/mcp-contract.ts';
import type { RunTrace } from './run-memo.ts';

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

/**
 * One run in Temporal: its workflow id and run id. Under the running-task cap a workflow id is a
 * slot's, run after run (slots.ts), so a task is one run of it: every wait, signal and cancel names
 * the run.
 */
export interface RunRef {
  workflowId: string;
  runId?: string;
  /** The task the run is, where it differs from the workflow id (for logs and spans). */
  taskId?: string;
}

/** What the gateway knows about one run at one moment: the input of every answer shape. */
export interface ExecutionView {
  /** The task id (the workflow id, for a run not under the cap). */
  workflowId: string;
  /** The run in Temporal. */
  run: RunRef;
  /** The catalog tool that started the run. */
  tool: string;
  createdAt: Date;
  lastUpdatedAt: Date;
  /** The tool arguments the run was started with (defaults applied). */
  arguments: Record<string, unknown>;
  state: ExecutionState;
  /** The start's trace context, when it was traced. */
  trace?: RunTrace;
}

// ---- results too large for Temporal ---------------------------------------------------------------

/** The failure reason of a run whose result Temporal would not take. */
export const RESULT_TOO_LARGE = 'result_too_large';

/** The reason the gateway gives Temporal when it ends a run stuck on a result too large to complete. */
export const TOO_LARGE_TERMINATION = 'mcp gateway: the workflow result is larger than Temporal accepts';

/**
 * Workflow task failure causes that mean the completion (its result) was too large: the worker's
 * gRPC message over 4 MiB (36), payloads over the server's limit (37), the request over it (40).
 * A workflow task failing for one of these fails on every retry: the run never completes.
 */
export const TOO_LARGE_TASK_CAUSES: ReadonlySet<number> = new Set([36, 37, 40]);

/** What the client is told of a result too large for Temporal (after "The run "). */
export const RESULT_TOO_LARGE_MESSAGE =
  "failed: its result is larger than Temporal accepts (a workflow result may be at most 2 MB with Temporal's " +
  'default blob size limit, and a worker can send at most 4 MiB at once). Return a large output as an artifact ' +
  'reference instead: store the bytes from an activity and return the reference (docs/artifacts.md)';
