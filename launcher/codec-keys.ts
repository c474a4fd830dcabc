// The key `npm start` encrypts payloads with when MCP_START_CODEC=true and no key is configured:
// generated once into the data folder (owner-only), and read again on every later start, so the
// runs kept in the dev server's database stay readable.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createOnce } from '../common/create-once.ts';

export function ensureLocalCodecKeys(dataDir: string): string {
  const file = join(dataDir, 'codec-keys');
  const id = `local-${new Date().toISOString().slice(0, 10)}`;
  createOnce(
    file,
    '# Payload encryption keys of `npm start` (id=base64key); keep this file to read old runs.\n' +
      `${id}=${randomBytes(32).toString('base64')}\n`,
  );
  return file;
}
