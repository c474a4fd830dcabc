// A file only the first process writes: several starting at once (replicas on one volume) all
// end up reading what that first one wrote, and none ever reads it part-written.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `contents` to a new file at `path` (its folder made if missing), unless the file exists.
 * True when this call made it; throws the file system's error on anything but "it exists".
 */
export function createOnce(path: string, contents: string, mode = 0o600): boolean {
  // Outside the catch: a file where the folder should be is an error, not "it exists".
  mkdirSync(dirname(path), { recursive: true });
  // Written whole under a name of its own first, then linked into place: a link never replaces a
  // file that exists, and the file appears with its contents, so a reader never sees it half-written.
  const draft = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(draft, contents, { flag: 'wx', mode });
  try {
    linkSync(draft, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(draft, { force: true });
  }
}
