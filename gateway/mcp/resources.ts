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
import type { RunParts } from '../temporal/backend.ts';
import {
  artifactReferences,
  isExpired,
  listedResource,
  parseArtifactUri,
  resourceContents,
} from './artifacts.ts';
import type { Catalog } from './catalog.ts';
import {
  artifactCorrupt,
  artifactNotFound,
  artifactReadsBusy,
  artifactTooLarge,
  artifactUnreadable,
  forgedArtifactReference,
  invalidArtifactUri,
} from './errors.ts';
import type { McpDeps, MethodCall } from './method-context.ts';
import { coversTask } from './rights.ts';

/** Where artifacts are, and what reading them may take. */
type ArtifactParts = Pick<McpDeps, 'artifacts'>;

/** resources/read. */
export function readResource({ views, artifacts }: Pick<RunParts, 'views'> & ArtifactParts) {
  return ({ params, caller, parsed, answered }: MethodCall<{ uri: string }>) =>
    readArtifact(params.uri, caller, { views, artifacts }, { parsed, answered });
}

async function readArtifact(
  uri: string,
  caller: Caller,
  { views, artifacts }: Pick<RunParts, 'views'> & ArtifactParts,
  { parsed, answered }: Pick<MethodCall, 'parsed' | 'answered'>,
) {
  const named = parseArtifactUri(uri);
  if (!named) throw invalidArtifactUri(uri);
  const task = parsed(named.taskId);
  const view = task && (await views.read(task, caller));
  if (view?.state.status !== 'completed') throw artifactNotFound(uri);
  const ref = artifactReferences(view.state.result).find((r) => r.id === named.artifactId);
  if (!ref) throw forgedArtifactReference();
  if (isExpired(ref, Date.now())) throw artifactNotFound(uri);
  if (ref.size > artifacts.readMaxBytes) throw artifactTooLarge(artifacts.readMaxBytes);
  const hold = (done: () => void) => void answered.then(done);
  const taken = { principal: caller.principal, bytes: ref.size, hold };
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

/** resources/list. */
export function listResources(parts: Pick<RunParts, 'listing'> & ArtifactParts & { catalog: Catalog }) {
  return ({ params, caller }: MethodCall<{ cursor?: string }>) => listArtifacts(params.cursor, caller, parts);
}

async function listArtifacts(
  cursor: string | undefined,
  caller: Caller,
  { listing, catalog, artifacts }: Pick<RunParts, 'listing'> & ArtifactParts & { catalog: Catalog },
) {
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
