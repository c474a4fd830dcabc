// A "not found" that helps an agent find its run again, never guesses for it: the caller's own
// recent runs of the tool (id, summary, status, start), and the one a near-miss id most likely
// meant (a few characters changed, dropped or added), first. Pure.
import type { RecentRun } from '../temporal/recent-runs.ts';
import type { PollTool } from './start-poll.ts';

/** At most this many edits apart: a copy gone wrong, not another id. */
const NEAR_MISS_EDITS = 3;

/** Levenshtein distance, with a bound: past `max` it answers max + 1 early. */
export function editDistance(a: string, b: string, max = NEAR_MISS_EDITS): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    previous = row;
  }
  return previous[b.length] ?? max + 1;
}

/** The listed run a garbled id most likely meant: the closest within a few edits, if one is. */
function nearMiss(id: string, runs: readonly RecentRun[]): RecentRun | undefined {
  let found: RecentRun | undefined;
  let closest = NEAR_MISS_EDITS + 1;
  for (const run of runs) {
    const distance = editDistance(id, run.workflowId);
    if (distance < closest) {
      closest = distance;
      found = run;
    }
  }
  return found;
}

/** The caller's runs as an answer lists them (`principal`: the caller, whose runs they are). */
export function recentRunsJson(tool: PollTool, runs: readonly RecentRun[], principal: string) {
  return runs.map((run) => ({
    workflow_id: run.workflowId,
    summary: tool.presentation.summary(tool.name, run.arguments, principal).slice(0, 200),
    status: run.status,
    started_at: run.startedAt.toISOString(),
  }));
}

/** The not_found answer with the caller's recent runs of the tool, the likely one first. */
export function lostHandleJson(id: string, tool: PollTool, runs: readonly RecentRun[], principal: string) {
  const likely = nearMiss(id, runs);
  const ordered = likely ? [likely, ...runs.filter((run) => run !== likely)] : runs;
  const listed = recentRunsJson(tool, ordered, principal);
  const noun = tool.presentation.noun;
  const next = likely
    ? `No ${noun} has this workflow_id; it looks like a mistyped copy of "${likely.workflowId}" (your run ` +
      `started ${likely.startedAt.toISOString()}). Use that workflow_id, exactly as written here.`
    : `No ${noun} has this workflow_id (it never existed, has expired, or was copied wrongly). ` +
      `Your most recent runs of ${tool.name} are listed in recent_runs: if one is the run you meant, use its ` +
      `workflow_id exactly as written. Otherwise, if the user still wants the work done, call ${tool.name} again.`;
  return {
    status: 'not_found' as const,
    workflow_id: id,
    ...(likely ? { did_you_mean: likely.workflowId } : {}),
    recent_runs: listed,
    next,
  };
}
