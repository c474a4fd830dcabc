// A file only the first process writes: several starting at once (replicas on one volume) all
// end up reading what that first one wrote.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `contents` to a new file at `path` (its folder made if missing), unless the file exists.
 * True when this call made it; throws the file system's error on anything but "it exists".
 */
export function createOnce(path: string, contents: string, mode = 0o600): boolean {
  // Outside the catch: a file where the folder should be is an error, not "it exists".
  mkdirSync(dirname(path), { recursive: true });
  try {
    // 'wx': fails if the file exists, so a concurrent writer never overwrites the first one's.
    writeFileSync(path, contents, { flag: 'wx', mode });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
