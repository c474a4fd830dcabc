// A caller's most recent runs of one tool, through Temporal's visibility (the McpPrincipal and
// McpTool search attributes): what a "not found" offers an agent that garbled or lost its handle.
// The query names the caller, and every id is checked against its owner tag as well, so another
// principal's runs never appear. Bounded: one page, a short deadline of its own, and at most one
// look per caller a second on this gateway; past either bound there is no list, not an error.

import type { Caller } from '../shared/caller.ts';
import type { TemporalCalls } from './client.ts';
import { visibilityString } from './listing.ts';
import { MCP_PRINCIPAL, MCP_TOOL, principalKeyword, type RunMemo } from './run-memo.ts';
import type { RunViews } from './view.ts';

/** One of the caller's runs as visibility lists it. */
export interface RecentRun {
  workflowId: string;
  /** Temporal's status name as the client names it, lower case: running, completed, failed, cancelled, terminated, timed_out. */
  status: string;
  startedAt: Date;
  /** The arguments its memo keeps (secret ones as digests). */
  arguments: Record<string, unknown>;
}

/** The longest a look may take: a "not found" is not held up for long by a slow visibility store. */
const LOOK_TIMEOUT_MS = 2_000;
/** One look per caller per this long on a gateway; a burst of bad ids gets the plain answer. */
const LOOK_EVERY_MS = 1_000;

export class RecentRuns {
  /** principal → when it last looked (this gateway's memory only: a refusal is always safe). */
  private readonly lastLook = new Map<string, number>();

  constructor(
    private readonly calls: TemporalCalls,
    private readonly views: RunViews,
  ) {}

  /** Up to `limit` of the caller's runs of `tool`, newest first; undefined when not looked up now. */
  async latest(caller: Caller, tool: string, limit = 5): Promise<RecentRun[] | undefined> {
    const at = Date.now();
    if (at - (this.lastLook.get(caller.principal) ?? Number.NEGATIVE_INFINITY) < LOOK_EVERY_MS)
      return undefined;
    if (this.lastLook.size > 10_000) this.lastLook.clear();
    this.lastLook.set(caller.principal, at);
    const { client, options } = this.calls;
    const query = `${MCP_PRINCIPAL.name} = ${visibilityString(principalKeyword(caller.principal))} AND ${MCP_TOOL.name} = ${visibilityString(tool)}`;
    const list = async () => {
      const runs: RecentRun[] = [];
      let listed = 0;
      for await (const run of client.workflow.list({ query, pageSize: limit })) {
        listed++;
        const memo = run.memo as Partial<RunMemo> | undefined;
        // A run under the cap names its task key in its memo (its workflow id is its slot's).
        const listedRun = { workflowId: run.workflowId, runId: run.runId, memoTask: memo?.task };
        const taskId = this.views.listedTask(listedRun, caller);
        if (taskId) {
          runs.push({
            workflowId: taskId,
            status: run.status.name.toLowerCase(),
            startedAt: run.startTime,
            arguments: memo?.arguments ?? {},
          });
        }
        if (listed >= limit) break; // one page: an id not the caller's never pulls in the next
      }
      return runs;
    };
    const timeoutMs = Math.min(LOOK_TIMEOUT_MS, options.callTimeoutMs);
    const runs = await this.calls.ownDeadline(() => this.calls.call(list, timeoutMs)).catch(() => undefined);
    if (!runs) return undefined;
    // Newest first, whatever order the visibility store keeps.
    return runs.sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime());
  }
}
