// The local store: a folder (one machine, or a volume the gateway and the workers share), one
// sub-folder per run and one file per artifact. Reads trust nothing they find there: no symbolic
// link anywhere below the store's folder (the run's folder is opened without following one, and the
// file through that open folder, so a folder swapped for a link meanwhile is never followed), regular
// files only, never more bytes than the size checked at open.
import { constants, createWriteStream, existsSync } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
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
const FOLDER_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY;
/** Linux names an open folder by its descriptor: a file opened through it is in that folder, wherever it moved. */
const OPEN_FOLDERS = existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined;

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
    const handle = await this.openArtifact(key);
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

  /** The artifact's file, opened with no link followed below the store's folder; undefined when absent. */
  private async openArtifact(key: ArtifactKey): Promise<FileHandle | undefined> {
    const { folder, file } = this.path(key);
    if (!OPEN_FOLDERS) {
      // Elsewhere: the folder is checked, then the file opened (a swap in between is not ruled out).
      const dir = await lstat(folder).catch(missing);
      if (!dir) return undefined;
      if (!dir.isDirectory()) throw new ArtifactUnreadableError('a run folder that is not a directory');
      return open(file, READ_FLAGS).catch(missing);
    }
    const dir = await open(folder, FOLDER_FLAGS).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOTDIR' || err.code === 'ELOOP')
        throw new ArtifactUnreadableError('a run folder that is not a directory');
      return missing(err);
    });
    if (!dir) return undefined;
    try {
      return await open(`${OPEN_FOLDERS}/${dir.fd}/${key.id}`, READ_FLAGS).catch(missing);
    } finally {
      await dir.close();
    }
  }

  async delete(key: ArtifactKey): Promise<void> {
    await rm(this.path(key).file, { force: true });
  }
}
