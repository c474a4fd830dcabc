// The local store: a folder (one machine, or a volume the gateway and the workers share), one
// sub-folder per run and one file per artifact. Reads trust nothing they find there: no symbolic
// links, regular files only, never more bytes than the size checked at open.
import { constants, createWriteStream } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type ArtifactKey,
  type ArtifactStore,
  ArtifactTooLargeError,
  ArtifactUnreadableError,
  asStream,
  checkKey,
  measuring,
  type ReadBytes,
  type StoredBytes,
} from './artifact-store.ts';

// O_NONBLOCK: opening a FIFO must not wait for a writer; on a regular file it changes nothing.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function missing(err: NodeJS.ErrnoException): undefined {
  if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
  if (err.code === 'ELOOP') throw new ArtifactUnreadableError('a symbolic link');
  throw err;
}

/** Written under a temporary name and renamed, so a reader never sees half. */
export class LocalArtifactStore implements ArtifactStore {
  readonly kind = 'local';
  constructor(readonly dir: string) {}

  private path(key: ArtifactKey): { folder: string; file: string } {
    checkKey(key);
    const folder = join(this.dir, key.run);
    return { folder, file: join(folder, key.id) };
  }

  async put(key: ArtifactKey, source: Readable | Uint8Array | string): Promise<StoredBytes> {
    const { folder, file } = this.path(key);
    await mkdir(folder, { recursive: true });
    const partial = `${file}.partial`;
    const measure = measuring();
    try {
      await pipeline(asStream(source), measure, createWriteStream(partial, { mode: 0o640 }));
      await rename(partial, file);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    return measure.result();
  }

  async get(key: ArtifactKey, maxBytes: number): Promise<ReadBytes> {
    const { folder, file } = this.path(key);
    // The run's folder must be a folder of the store's own, not a link to elsewhere.
    const dir = await lstat(folder).catch(missing);
    if (!dir) return undefined;
    if (!dir.isDirectory()) throw new ArtifactUnreadableError('a run folder that is not a directory');
    const handle = await open(file, READ_FLAGS).catch(missing);
    if (!handle) return undefined;
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new ArtifactUnreadableError('not a regular file');
      if (stats.size > maxBytes) throw new ArtifactTooLargeError(maxBytes);
      const bytes = Buffer.allocUnsafe(stats.size);
      let filled = 0;
      while (filled < stats.size) {
        const { bytesRead } = await handle.read(bytes, filled, stats.size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return bytes.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  async delete(key: ArtifactKey): Promise<void> {
    await rm(this.path(key).file, { force: true });
  }
}
