// The caller's artifacts as MCP resources. resources/read: a URI names a run and an artifact; the
// bytes are served only when the run is the caller's, its result holds that reference, the
// reference has not expired, and the bytes stored under that run (never another's) match its size
// and digest; no more bytes than the reference gives are ever read, and only within the read
// budget. resources/list: the unexpired artifacts of the caller's completed runs, a page of runs at
// a time (newest first; the cursor is the visibility store's own page token), leaving out runs of a
// tool whose OAuth scopes the token lacks, as tasks/get of them would be refused.
import { createHash } from 'node:crypto';
import { ArtifactTooLargeError, ArtifactUnreadableError } from '../../common/artifact-store.ts';
import type { Caller } from '../shared/caller.ts';
import {
  artifactReferences,
  isExpired,
  listedResource,
  parseArtifactUri,
  resourceContents,
} from './artifacts.ts';
import {
  artifactCorrupt,
  artifactNotFound,
  artifactReadsBusy,
  artifactTooLarge,
  artifactUnreadable,
  forgedArtifactReference,
  invalidArtifactUri,
} from './errors.ts';
import type { McpDeps } from './method-context.ts';
import { afterAnswer } from './observe.ts';
import { coversTask } from './rights.ts';

export async function resourcesRead(uri: string, caller: Caller, deps: McpDeps) {
  const { views, artifacts } = deps;
  const named = parseArtifactUri(uri);
  if (!named) throw invalidArtifactUri(uri);
  const view = await views.read(named.taskId, caller);
  if (view?.state.status !== 'completed') throw artifactNotFound(uri);
  const ref = artifactReferences(view.state.result).find((r) => r.id === named.artifactId);
  if (!ref) throw forgedArtifactReference();
  if (isExpired(ref, Date.now())) throw artifactNotFound(uri);
  if (ref.size > artifacts.readMaxBytes) throw artifactTooLarge(artifacts.readMaxBytes);
  const taken = { principal: caller.principal, bytes: ref.size, hold: afterAnswer };
  return artifacts.budget.within(taken, artifactReadsBusy, async () => {
    let bytes: Buffer | undefined;
    try {
      // The reference's own size bounds the read: more stored bytes than it gives are not its bytes.
      bytes = await artifacts.store.get({ run: view.run.runId ?? view.run.workflowId, id: ref.id }, ref.size);
    } catch (err) {
      if (err instanceof ArtifactTooLargeError) throw artifactCorrupt();
      if (err instanceof ArtifactUnreadableError) throw artifactUnreadable();
      throw err;
    }
    if (!bytes) throw artifactNotFound(uri);
    if (bytes.length !== ref.size || createHash('sha256').update(bytes).digest('hex') !== ref.sha256)
      throw artifactCorrupt();
    return { contents: [resourceContents(named.taskId, ref, bytes)] };
  });
}

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
