// For workflow authors: an activity stores a large output with storeArtifact and returns the
// reference it gives; the workflow returns that reference (or an object holding it) as its result,
// and the gateway serves the bytes as an MCP resource. The bytes never enter Temporal history.
// The object is stored under the run's id, which the gateway reads it under: a reference another
// run's result copies names nothing there (not the workflow id: under the gateway's running-task cap
// a workflow id is a slot's, shared by one principal's runs one after another).
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Context } from '@temporalio/activity';
import type { ArtifactStore } from '../common/artifact-store.ts';
import { artifactStoreSettings, openArtifactStore } from '../common/artifact-store-settings.ts';
import { ARTIFACT_REFERENCE_TYPE, type ArtifactReference } from '../workflows/mcp-contract.ts';

/** How long an artifact is served when its author does not say: one day. */
const DEFAULT_ARTIFACT_TTL_SECONDS = 24 * 60 * 60;

export interface ArtifactOptions {
  /** A file name for people and clients. */
  name: string;
  /** MIME type; application/octet-stream when absent. */
  contentType?: string;
  /** Seconds until the gateway stops serving it (default one day). */
  ttlSeconds?: number;
  /** The store; default: the one the environment names (MCP_ARTIFACT_STORE and its settings). */
  store?: ArtifactStore;
  /**
   * The run id of the run whose result returns the reference; default: the run of the calling
   * activity. Set it when a child workflow's activity writes for its parent.
   */
  run?: string;
}

let fromEnv: Promise<ArtifactStore> | undefined;

/** The store the worker's environment names, opened once. */
function defaultArtifactStore(): Promise<ArtifactStore> {
  fromEnv ??= openArtifactStore(artifactStoreSettings(process.env));
  return fromEnv;
}

/** Stores `data` (bytes, text or a stream) under a fresh random id and returns its reference. */
export async function storeArtifact(
  data: Readable | Uint8Array | string,
  options: ArtifactOptions,
): Promise<ArtifactReference> {
  const ttl = options.ttlSeconds ?? DEFAULT_ARTIFACT_TTL_SECONDS;
  if (!Number.isFinite(ttl) || ttl <= 0) throw new Error(`ttlSeconds must be positive, got ${ttl}`);
  const id = randomBytes(18).toString('base64url');
  const run = options.run ?? Context.current().info.workflowExecution?.runId;
  if (!run)
    throw new Error(
      'storeArtifact needs the run it stores for: call it from an activity of a workflow, or pass `run`',
    );
  const stored = await (options.store ?? (await defaultArtifactStore())).put({ run, id }, data);
  return {
    type: ARTIFACT_REFERENCE_TYPE,
    id,
    name: options.name,
    contentType: options.contentType ?? 'application/octet-stream',
    size: stored.size,
    sha256: stored.sha256,
    expiresAt: new Date(Date.now() + ttl * 1000).toISOString(),
  };
}
