// The S3 store: a bucket on S3 or an S3-compatible server, through AWS SDK v3, one key per
// artifact under its run (`<prefix><run id>/<artifact id>`). Every call has a deadline: a
// server that stops answering costs a read its deadline, never a socket held for ever. The SDK is an
// optional peer of the package, loaded when the S3 store is opened (openS3ArtifactStore).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import {
  type ArtifactKey,
  type ArtifactStore,
  type ArtifactStoreSettings,
  ArtifactTooLargeError,
  checkKey,
  measuring,
  type ReadBytes,
  type StoredBytes,
} from './artifact-store.ts';
import { importOptionalPeer } from './optional-peer.ts';

type S3Settings = Extract<ArtifactStoreSettings, { kind: 's3' }>;
type S3Sdk = typeof import('@aws-sdk/client-s3');

/** The S3 store of `settings`, once the AWS SDK is loaded (an error names it when it is not installed). */
export async function openS3ArtifactStore(settings: S3Settings): Promise<S3ArtifactStore> {
  const sdk = await importOptionalPeer(
    '@aws-sdk/client-s3',
    'MCP_ARTIFACT_STORE=s3',
    () => import('@aws-sdk/client-s3'),
  );
  return new S3ArtifactStore(sdk, settings);
}

class S3ArtifactStore implements ArtifactStore {
  readonly kind = 's3';
  readonly client: S3Client;
  constructor(
    private readonly sdk: S3Sdk,
    private readonly settings: S3Settings,
  ) {
    this.client = new sdk.S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      // A socket silent this long is given up (an upload in progress is never silent).
      requestHandler: {
        connectionTimeout: Math.min(settings.timeoutMs, 10_000),
        requestTimeout: settings.timeoutMs,
      },
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
    });
  }

  private key(key: ArtifactKey): string {
    checkKey(key);
    return `${this.settings.prefix}${key.run}/${key.id}`;
  }

  async put(key: ArtifactKey, source: Readable | Uint8Array | string): Promise<StoredBytes> {
    const Key = this.key(key);
    const Bucket = this.settings.bucket;
    if (!(source instanceof Readable)) {
      const body = Buffer.from(source);
      await this.client.send(new this.sdk.PutObjectCommand({ Bucket, Key, Body: body }));
      return { size: body.length, sha256: createHash('sha256').update(body).digest('hex') };
    }
    // A PUT needs its length up front: a stream of unknown length is spooled to a file first
    // (memory stays flat whatever the size), then sent from it.
    const spool = join(tmpdir(), `mcp-artifact-${key.id}.partial`);
    try {
      const measure = measuring();
      await pipeline(source, measure, createWriteStream(spool, { mode: 0o600 }));
      const { size } = await stat(spool);
      await this.client.send(
        new this.sdk.PutObjectCommand({ Bucket, Key, Body: createReadStream(spool), ContentLength: size }),
      );
      return measure.result();
    } finally {
      await rm(spool, { force: true });
    }
  }

  /** The bytes, the whole read (answer and body) within the deadline. */
  async get(key: ArtifactKey, maxBytes: number): Promise<ReadBytes> {
    const deadline = AbortSignal.timeout(this.settings.timeoutMs);
    let answer: GetObjectCommandOutput;
    try {
      answer = await this.client.send(
        new this.sdk.GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key) }),
        {
          abortSignal: deadline,
        },
      );
    } catch (err) {
      if (err instanceof this.sdk.NoSuchKey || (err as { name?: string }).name === 'NoSuchKey')
        return undefined;
      throw err;
    }
    const body = answer.Body as Readable | undefined;
    if (!body) return undefined;
    if ((answer.ContentLength ?? 0) > maxBytes) {
      body.destroy();
      throw new ArtifactTooLargeError(maxBytes);
    }
    const stop = () =>
      body.destroy(new Error(`the artifact store did not answer within ${this.settings.timeoutMs} ms`));
    deadline.addEventListener('abort', stop, { once: true });
    try {
      return await collect(body, maxBytes);
    } finally {
      deadline.removeEventListener('abort', stop);
    }
  }

  async delete(key: ArtifactKey): Promise<void> {
    await this.client.send(
      new this.sdk.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key) }),
      {
        abortSignal: AbortSignal.timeout(this.settings.timeoutMs),
      },
    );
  }
}

/** A body's bytes, refusing (and dropping) one longer than `maxBytes` as soon as it is. */
async function collect(body: Readable, maxBytes: number): Promise<Buffer> {
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
