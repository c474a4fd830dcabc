// resources/list: the unexpired artifacts of the caller's completed runs, a page of runs at a time
// (newest first; the cursor is the visibility store's own page token). Runs of a tool whose OAuth
// scopes the token lacks are left out, as tasks/get of them would be refused; only the references
// of each result are kept, and the listing takes a read of the read budget.
import type { Caller } from '../shared/caller.ts';
import { artifactReferences, isExpired, listedResource } from './artifacts.ts';
import { artifactReadsBusy } from './errors.ts';
import type { McpDeps } from './method-context.ts';
import { coversTask } from './tool-rights.ts';

const RUNS_PER_PAGE = 20;

/** The budget a listing takes: two results of Temporal's default 2 MB limit at once. */
const LISTING_BYTES = 4 * 1024 * 1024;

export async function resourcesList(cursor: string | undefined, caller: Caller, deps: McpDeps) {
  const { listing, catalog, artifacts } = deps;
  const covered = (taskId: string) => coversTask(catalog, taskId, caller.scopes);
  const taken = { principal: caller.principal, bytes: LISTING_BYTES };
  const page = await artifacts.budget.within(taken, artifactReadsBusy, () =>
    listing.completed(caller, cursor, {
      size: RUNS_PER_PAGE,
      include: covered,
      keep: artifactReferences,
    }),
  );
  const now = Date.now();
  const resources = page.runs.flatMap(({ workflowId, result }) =>
    ((result ?? []) as ReturnType<typeof artifactReferences>)
      .filter((ref) => !isExpired(ref, now))
      .map((ref) => listedResource(workflowId, ref)),
  );
  return { resources, ...(page.cursor ? { nextCursor: page.cursor } : {}) };
}
