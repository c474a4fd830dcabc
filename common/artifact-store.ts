// Where large outputs live instead of Temporal history: a local folder (one machine, or a volume
// the gateway and the workers share) or an S3-compatible bucket (several machines). Workers write
// (activities/artifacts.ts), the gateway reads (resources/read). An object is named by the
// artifact's random id alone; what it is (type, size, digest, expiry) travels in the reference the
// run returns, so the store needs no metadata of its own.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';

/** An artifact id: random, URL- and file-name-safe, never a path. */
export const ARTIFACT_ID_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

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
    };

const DEFAULT_ARTIFACT_DIR = join(tmpdir(), 'temporal-mcp-gateway', 'artifacts');

/**
 * The store from MCP_ARTIFACT_STORE (`local`, the default, or `s3`) and its settings; the S3
 * credentials are the standard AWS ones (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, profiles, roles).
 */
export function artifactStoreSettings(env: NodeJS.ProcessEnv): ArtifactStoreSettings {
  const kind = env.MCP_ARTIFACT_STORE?.trim() || 'local';
  if (kind === 'local') return { kind, dir: resolve(env.MCP_ARTIFACT_DIR?.trim() || DEFAULT_ARTIFACT_DIR) };
  if (kind !== 's3') throw new Error(`MCP_ARTIFACT_STORE must be "local" or "s3", got "${kind}"`);
  const bucket = env.MCP_ARTIFACT_S3_BUCKET?.trim();
  if (!bucket) throw new Error('MCP_ARTIFACT_STORE=s3 needs MCP_ARTIFACT_S3_BUCKET');
  const endpoint = env.MCP_ARTIFACT_S3_ENDPOINT?.trim() || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint)) {
    throw new Error(`MCP_ARTIFACT_S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  }
  const pathStyle = env.MCP_ARTIFACT_S3_FORCE_PATH_STYLE?.trim().toLowerCase();
  if (pathStyle && !['true', 'false'].includes(pathStyle)) {
    throw new Error(`MCP_ARTIFACT_S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}"`);
  }
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return {
    kind,
    bucket,
    ...(accessKeyId && secretAccessKey
      ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } }
      : {}),
    prefix: env.MCP_ARTIFACT_S3_PREFIX?.trim() ?? 'artifacts/',
    ...(endpoint ? { endpoint } : {}),
    region: env.MCP_ARTIFACT_S3_REGION?.trim() || env.AWS_REGION?.trim() || 'us-east-1',
    // An S3-compatible endpoint rarely has a DNS name per bucket: path style unless told otherwise.
    forcePathStyle: pathStyle ? pathStyle === 'true' : endpoint !== undefined,
  };
}

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
  /** Writes the object `id` from `source`, hashing it on the way. */
  put(id: string, source: Readable | Uint8Array | string): Promise<StoredBytes>;
  /** The object's bytes; refuses one over `maxBytes` without reading it whole. */
  get(id: string, maxBytes: number): Promise<ReadBytes>;
  delete(id: string): Promise<void>;
}

function checkId(id: string): void {
  if (!ARTIFACT_ID_PATTERN.test(id)) throw new Error(`not an artifact id: "${id}"`);
}

function asStream(source: Readable | Uint8Array | string): Readable {
  return source instanceof Readable ? source : Readable.from([Buffer.from(source)]);
}

/** Counts and hashes what passes through. */
function measuring(): Transform & { result(): StoredBytes } {
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

/** A folder: one file per artifact, written under a temporary name and renamed, so a reader never sees half. */
export class LocalArtifactStore implements ArtifactStore {
  readonly kind = 'local';
  constructor(readonly dir: string) {}

  async put(id: string, source: Readable | Uint8Array | string): Promise<StoredBytes> {
    checkId(id);
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, id);
    const partial = `${path}.partial`;
    const measure = measuring();
    try {
      await pipeline(asStream(source), measure, createWriteStream(partial, { mode: 0o640 }));
      await rename(partial, path);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    return measure.result();
  }

  async get(id: string, maxBytes: number): Promise<ReadBytes> {
    checkId(id);
    const file = await open(join(this.dir, id), 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!file) return undefined;
    try {
      const { size } = await file.stat();
      if (size > maxBytes) throw new ArtifactTooLargeError(maxBytes);
      return await file.readFile();
    } finally {
      await file.close();
    }
  }

  async delete(id: string): Promise<void> {
    checkId(id);
    await rm(join(this.dir, id), { force: true });
  }
}

/** A bucket on S3 or an S3-compatible server, through AWS SDK v3. */
class S3ArtifactStore implements ArtifactStore {
  readonly kind = 's3';
  readonly client: S3Client;
  constructor(private readonly settings: Extract<ArtifactStoreSettings, { kind: 's3' }>) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
    });
  }

  private key(id: string): string {
    checkId(id);
    return `${this.settings.prefix}${id}`;
  }

  async put(id: string, source: Readable | Uint8Array | string): Promise<StoredBytes> {
    const key = this.key(id);
    if (!(source instanceof Readable)) {
      const body = Buffer.from(source);
      await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: body }));
      return { size: body.length, sha256: createHash('sha256').update(body).digest('hex') };
    }
    // A PUT needs its length up front: a stream of unknown length is spooled to a file first
    // (memory stays flat whatever the size), then sent from it.
    const spool = join(tmpdir(), `mcp-artifact-${id}.partial`);
    try {
      const measure = measuring();
      await pipeline(source, measure, createWriteStream(spool, { mode: 0o600 }));
      const { size } = await stat(spool);
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: key,
          Body: createReadStream(spool),
          ContentLength: size,
        }),
      );
      return measure.result();
    } finally {
      await rm(spool, { force: true });
    }
  }

  async get(id: string, maxBytes: number): Promise<ReadBytes> {
    let answer: GetObjectCommandOutput;
    try {
      answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(id) }),
      );
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
    const body = answer.Body as (Readable & { destroy(): void }) | undefined;
    if (!body) return undefined;
    if ((answer.ContentLength ?? 0) > maxBytes) {
      body.destroy();
      throw new ArtifactTooLargeError(maxBytes);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        body.destroy();
        throw new ArtifactTooLargeError(maxBytes);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks, size);
  }

  async delete(id: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.key(id) }));
  }
}

export function openArtifactStore(settings: ArtifactStoreSettings): ArtifactStore {
  return settings.kind === 'local' ? new LocalArtifactStore(settings.dir) : new S3ArtifactStore(settings);
}
