// Where large outputs live instead of Temporal history: a local folder (local-artifact-store.ts)
// or an S3-compatible bucket (s3-artifact-store.ts). Workers write (activities/artifacts.ts), the
// gateway reads (resources/read). An object is named by its run (its run id: a workflow id may be a
// slot's, shared run after run) and the artifact's random id: a reference another run returns names
// nothing of this run's. What it is
// (type, size, digest, expiry) travels in the reference the run returns, so the store keeps no
// metadata of its own.
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';

/** An artifact id: random, URL- and file-name-safe, never a path. */
export const ARTIFACT_ID_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** A run id as a folder or key segment: no leading dot, so never `.` or `..`, never a path. */
const RUN_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;

/** Where an artifact lives: the run id of the run that wrote it, and its own id. */
export interface ArtifactKey {
  run: string;
  id: string;
}

export type ArtifactStoreSettings =
  | { kind: 'local'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      /** Key prefix inside the bucket ("artifacts/"). */
      prefix: string;
      /** An S3-compatible server's URL; absent: AWS itself. */
      endpoint?: string;
      region: string;
      /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible servers need. */
      forcePathStyle: boolean;
      /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY when set; else the SDK's own chain (profiles, roles). */
      credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
      /** Deadline of a read, and the longest a socket may stay silent (MCP_ARTIFACT_S3_TIMEOUT_MS). */
      timeoutMs: number;
    };

/** What storing bytes gave: their size and SHA-256 (hex). */
export interface StoredBytes {
  size: number;
  sha256: string;
}

/** The bytes of a stored object, or undefined when there is none (never written, or removed). */
export type ReadBytes = Buffer | undefined;

export class ArtifactTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the artifact is larger than ${limitBytes} bytes`);
  }
}

export interface ArtifactStore {
  readonly kind: ArtifactStoreSettings['kind'];
  /** Writes the object from `source`, hashing it on the way. */
  put(key: ArtifactKey, source: Readable | Uint8Array | string): Promise<StoredBytes>;
  /** The object's bytes; refuses one over `maxBytes` without reading more than that. */
  get(key: ArtifactKey, maxBytes: number): Promise<ReadBytes>;
  delete(key: ArtifactKey): Promise<void>;
}

export function asStream(source: Readable | Uint8Array | string): Readable {
  return source instanceof Readable ? source : Readable.from([Buffer.from(source)]);
}

/** Counts and hashes what passes through. */
export function measuring(): Transform & { result(): StoredBytes } {
  const hash = createHash('sha256');
  let size = 0;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return Object.assign(transform, { result: () => ({ size, sha256: hash.digest('hex') }) });
}

/** Bytes the store holds but will not serve: a link, a FIFO, a device, a folder that is not its own. */
export class ArtifactUnreadableError extends Error {
  constructor(what: string) {
    super(`the stored artifact is ${what}`);
  }
}

export function checkKey(key: ArtifactKey): void {
  if (!ARTIFACT_ID_PATTERN.test(key.id)) throw new Error(`not an artifact id: "${key.id}"`);
  if (!RUN_ID_PATTERN.test(key.run)) throw new Error(`not a run id an artifact can live under: "${key.run}"`);
}
