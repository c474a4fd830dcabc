// The server secret that keys idempotent task ids (HMAC). From MCP_SERVER_SECRET, or the file
// MCP_SERVER_SECRET_FILE names; otherwise (local runs) generated once and kept in
// <MCP_DATA_DIR>/server-secret, so a key maps to the same task across gateway restarts.
// Every replica behind one load balancer must use the same secret.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createOnce } from '../common/create-once.ts';

const MIN_SECRET_LENGTH = 32;
export const SECRET_FILE_NAME = 'server-secret';

export interface ServerSecret {
  secret: Buffer;
  /** Where it came from, for the startup log line (never the secret itself). */
  source: string;
}

function checked(value: string, source: string): ServerSecret {
  const secret = value.trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`${source}: the server secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  return { secret: Buffer.from(secret, 'utf8'), source };
}

function readSecretFile(path: string, source: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${source}: cannot read ${path}: ${(err as Error).message}`);
  }
}

export function loadServerSecret(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ServerSecret {
  const inline = env.MCP_SERVER_SECRET?.trim();
  const file = env.MCP_SERVER_SECRET_FILE?.trim();
  if (inline && file) throw new Error('set MCP_SERVER_SECRET or MCP_SERVER_SECRET_FILE, not both');
  if (inline) return checked(inline, 'MCP_SERVER_SECRET');
  if (file)
    return checked(readSecretFile(file, 'MCP_SERVER_SECRET_FILE'), `MCP_SERVER_SECRET_FILE (${file})`);

  const dataDir = resolve(cwd, env.MCP_DATA_DIR?.trim() || '.data');
  const path = join(dataDir, SECRET_FILE_NAME);
  try {
    // Only the first process creates it; a concurrent one reads what that one wrote.
    createOnce(path, `${randomBytes(32).toString('base64url')}\n`);
  } catch (err) {
    throw new Error(
      `cannot keep a server secret in ${path} (${(err as Error).message}): set MCP_SERVER_SECRET or ` +
        'MCP_SERVER_SECRET_FILE, or point MCP_DATA_DIR at a writable folder',
    );
  }
  return checked(readSecretFile(path, 'server secret'), path);
}
