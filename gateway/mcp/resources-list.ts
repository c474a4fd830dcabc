// resources/list: the unexpired artifacts of the caller's completed runs, a page of runs at a time
// (newest first; the cursor is the visibility store's own page token).
import type { Caller } from '../temporal/run-memo.ts';
import { artifactReferences, isExpired, listedResource } from './artifacts.ts';
import type { McpDeps } from './method-context.ts';

export async function resourcesList(cursor: string | undefined, caller: Caller, deps: McpDeps) {
  const page = await deps.backend.listing.completed(caller, cursor);
  const now = Date.now();
  const resources = page.runs.flatMap(({ workflowId, result }) =>
    artifactReferences(result)
      .filter((ref) => !isExpired(ref, now))
      .map((ref) => listedResource(workflowId, ref)),
  );
  return { resources, ...(page.cursor ? { nextCursor: page.cursor } : {}) };
}
