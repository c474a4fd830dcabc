// resources/read of an artifact: a URI names a run and an artifact; the bytes are served only when
// the run is the caller's, its result holds that reference, the reference has not expired, and the
// bytes stored under that run (never another's) match its size and digest. No more bytes than the
// reference gives are ever read, and only within the read budget.
import { createHash } from 'node:crypto';
import { ArtifactTooLargeError, ArtifactUnreadableError } from '../../common/artifact-store.ts';
import type { Caller } from '../shared/caller.ts';
import { artifactReferences, isExpired, parseArtifactUri, resourceContents } from './artifacts.ts';
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
