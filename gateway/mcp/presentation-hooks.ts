// How a tool's runs read to people and models: what a presentation must answer (the generic one is
// presentation.ts; a catalog entry's hooks may override any member). Types only, part of the public
// hooks API (gateway/hooks.ts).
import type { ExecutionView, RunningState } from '../temporal/run-state.ts';

export interface ResultOutcome {
  /** A line about the result, shown beside it (start/poll `message`) and as the statusMessage. */
  message?: string;
  /** The result is the tool's error answer (isError), though the run completed. */
  isError?: boolean;
}

/** One notifications/progress report. */
export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * How a tool's runs read. Every tool has the generic presentation, built from the workflow
 * contract alone; a catalog entry's hooks may override any member (the built-in mining entry does).
 */
export interface Presentation {
  /** What one run is called in texts: "run", "mining run". */
  noun: string;
  /** The workflow's single argument, from the validated tool arguments. */
  workflowInput(args: Record<string, unknown>, idempotencyKeyArgument?: string): unknown;
  /** One line for the Web UI list of runs; `args` show each secret (writeOnly) value as `[secret]`. */
  summary(tool: string, args: Record<string, unknown>, principal: string): string;
  /** The start/poll `progress` object of a running run; null when there is none to show. */
  progressJson(state: RunningState): Record<string, unknown> | null;
  /** The first words of a running handle's `next` text. */
  working(state: RunningState): string;
  /** The task's statusMessage. */
  statusMessage(view: ExecutionView): string | undefined;
  outcome(result: unknown): ResultOutcome | undefined;
  /** A running run's progress for notifications/progress. */
  progressReport(view: ExecutionView): ProgressReport;
}
