// The poll interval a client is told (pollIntervalMs, poll_after_seconds), following the run: short
// right after the start and when the progress says the end is near, the steady interval otherwise,
// long while the run waits for a person; a workflow's own suggestion (ToolProgress.pollAfterMs)
// instead of all that. Always within [min, max], with jitter so that clients started together drift
// apart. Pure: the clock and the random number come in as arguments.
import { type ExecutionView, hasInputRequests } from '../temporal/run-state.ts';

/** A run as the interval advice needs it: its state, and its start time when known. */
export type PacedView = Pick<ExecutionView, 'state'> & { createdAt?: Date };

/** What every task answer says of time: how long a task lives, and the interval to advise now. */
export interface TaskTiming {
  ttlMs: number;
  pollIntervalFor(view: PacedView): number;
}

export interface PollPacing {
  /** The steady interval of a working run (MCP_POLL_INTERVAL_MS). */
  intervalMs: number;
  /** Right after the start and near the end (MCP_POLL_FAST_INTERVAL_MS). */
  fastIntervalMs: number;
  /** While the run waits for input (MCP_POLL_INPUT_INTERVAL_MS). */
  inputIntervalMs: number;
  /** Never more (MCP_POLL_MAX_INTERVAL_MS). */
  maxIntervalMs: number;
  /** Never less: the poll limiter's interval (MCP_POLL_MIN_INTERVAL_MS), 0 when it is off. */
  minIntervalMs: number;
  /** Up to this fraction more or less, at random (MCP_POLL_JITTER_PERCENT / 100). */
  jitter: number;
}

/** What the interval depends on: where the run is, as the gateway sees it now. */
export interface RunPace {
  waitingForInput: boolean;
  /** Since the run started. */
  elapsedMs: number;
  progress?: number;
  total?: number;
  /** The workflow's own suggestion (ToolProgress.pollAfterMs). */
  suggestedMs?: number;
}

/**
 * Early in a run the next poll waits at most this share of the time run so far: polls land at about
 * 1, 1.5, 2.25… times the first wait, so a short run is seen soon after it ends and a long one soon
 * reaches the steady interval.
 */
const START_SHARE = 0.5;

/** No advice is shorter than this, whatever a workflow suggests (the steady interval's own floor). */
export const FLOOR_MS = 100;

/** The time left by the progress so far, at the rate so far; undefined when the progress says nothing. */
function remainingMs(run: RunPace): number | undefined {
  const { progress, total, elapsedMs } = run;
  if (progress === undefined || total === undefined || !(total > 0) || !(progress > 0)) return undefined;
  if (progress >= total) return 0;
  return (elapsedMs * (total - progress)) / progress;
}

/** The interval before jitter and clamps. */
export function targetIntervalMs(pacing: PollPacing, run: RunPace): number {
  if (run.suggestedMs !== undefined) return run.suggestedMs;
  if (run.waitingForInput) return pacing.inputIntervalMs;
  // A poll need not come later than the run's expected end, nor much later than its age.
  const soon = Math.min(run.elapsedMs * START_SHARE, remainingMs(run) ?? Number.POSITIVE_INFINITY);
  return Math.max(pacing.fastIntervalMs, Math.min(pacing.intervalMs, soon));
}

/** The advised interval in whole milliseconds; `random` is in [0, 1). */
export function pollIntervalMs(pacing: PollPacing, run: RunPace, random: number): number {
  const jittered = targetIntervalMs(pacing, run) * (1 + pacing.jitter * (2 * random - 1));
  // The floor last: a client that follows the advice is never refused by the poll limiter.
  const floor = Math.max(pacing.minIntervalMs, FLOOR_MS);
  return Math.max(floor, Math.min(pacing.maxIntervalMs, Math.round(jittered)));
}

const finite = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** A run's pace from what the gateway sees of it at `nowMs`; without a start time, it counts as long running. */
export function runPace(view: Pick<ExecutionView, 'state'> & { createdAt?: Date }, nowMs: number): RunPace {
  const state = view.state;
  const progress = state.status === 'running' ? state.progress : undefined;
  const suggested = finite(progress?.pollAfterMs);
  const done = finite(progress?.progress);
  const total = finite(progress?.total);
  return {
    waitingForInput: hasInputRequests(state),
    elapsedMs: view.createdAt ? Math.max(0, nowMs - view.createdAt.getTime()) : Number.POSITIVE_INFINITY,
    ...(done !== undefined ? { progress: done } : {}),
    ...(total !== undefined ? { total } : {}),
    ...(suggested !== undefined && suggested >= 0 ? { suggestedMs: suggested } : {}),
  };
}

/** The advice for a run as it is now, with this gateway's pacing, clock and randomness. */
export function pacedIntervals(
  pacing: PollPacing,
  clock: () => number = Date.now,
  random: () => number = Math.random,
): (view: PacedView) => number {
  return (view) => pollIntervalMs(pacing, runPace(view, clock()), random());
}
