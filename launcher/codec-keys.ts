// The key `npm start` encrypts payloads with when MCP_START_CODEC=true and no key is configured:
// generated once into the data folder (owner-only), and read again on every later start, so the
// runs kept in the dev server's database stay readable.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function ensureLocalCodecKeys(dataDir: string): string {
  const file = join(dataDir, 'codec-keys');
  const id = `local-${new Date().toISOString().slice(0, 10)}`;
  try {
    writeFileSync(
      file,
      '# Payload encryption keys of `npm start` (id=base64key); keep this file to read old runs.\n' +
        `${id}=${randomBytes(32).toString('base64')}\n`,
      { flag: 'wx', mode: 0o600 },
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return file;
}
