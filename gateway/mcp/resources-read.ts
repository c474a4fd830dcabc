// resources/read of an artifact: a URI names a run and an artifact; the bytes are served only when
// the run is the caller's, its result holds that reference, the reference has not expired, and the
// stored bytes match its size and digest.
import { createHash } from 'node:crypto';
import { ArtifactTooLargeError } from '../../common/artifact-store.ts';
import type { Caller } from '../temporal/run-memo.ts';
import { artifactReferences, isExpired, parseArtifactUri, resourceContents } from './artifacts.ts';
import {
  artifactCorrupt,
  artifactNotFound,
  artifactTooLarge,
  forgedArtifactReference,
  invalidArtifactUri,
} from './errors.ts';
import type { McpDeps } from './method-context.ts';

export async function resourcesRead(uri: string, caller: Caller, deps: McpDeps) {
  const { backend, artifacts } = deps;
  const named = parseArtifactUri(uri);
  if (!named) throw invalidArtifactUri(uri);
  const view = await backend.views.of(named.taskId, caller);
  if (view?.state.status !== 'completed') throw artifactNotFound(uri);
  const ref = artifactReferences(view.state.result).find((r) => r.id === named.artifactId);
  if (!ref) throw forgedArtifactReference();
  if (isExpired(ref, Date.now())) throw artifactNotFound(uri);
  if (ref.size > artifacts.readMaxBytes) throw artifactTooLarge(artifacts.readMaxBytes);
  let bytes: Buffer | undefined;
  try {
    bytes = await artifacts.store.get(ref.id, artifacts.readMaxBytes);
  } catch (err) {
    if (err instanceof ArtifactTooLargeError) throw artifactTooLarge(artifacts.readMaxBytes);
    throw err;
  }
  if (!bytes) throw artifactNotFound(uri);
  if (bytes.length !== ref.size || createHash('sha256').update(bytes).digest('hex') !== ref.sha256)
    throw artifactCorrupt();
  return { contents: [resourceContents(named.taskId, ref, bytes)] };
}
