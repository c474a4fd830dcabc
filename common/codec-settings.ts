// The payload codec's keys, read the same way by the gateway, the worker and the Python fixture
// worker: MCP_CODEC_KEYS (or the file MCP_CODEC_KEYS_FILE) lists `id=base64key` pairs, and
// MCP_CODEC_KEY_ID names the one new payloads are encrypted with; the others only decrypt (a key
// being rotated out). Neither set: no encryption. Errors name the variable and the key id, never a key.
import { readFileSync } from 'node:fs';
import { type CodecKeys, EncryptionCodec, KEY_BYTES } from './payload-codec.ts';

const KEY_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The key a base64 (or base64url) text stands for; throws naming `what` when it is not 32 bytes. */
function decodeKey(text: string, what: string): Buffer {
  const isUrl = !BASE64.test(text) && BASE64URL.test(text);
  if (!BASE64.test(text) && !isUrl) throw new Error(`${what} is not base64`);
  const key = Buffer.from(text, isUrl ? 'base64url' : 'base64');
  if (key.length !== KEY_BYTES) {
    throw new Error(
      `${what} is ${key.length} bytes; AES-256 needs ${KEY_BYTES} (make one with: openssl rand -base64 32)`,
    );
  }
  return key;
}

/** `id=base64key` pairs separated by commas, whitespace or newlines (`#` starts a comment line). */
function parseCodecKeys(text: string, source: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  const lines = text.split(/\r?\n/).filter((line) => !line.trim().startsWith('#'));
  let entry = 0;
  for (const pair of lines.join(',').split(/[\s,]+/)) {
    if (pair === '') continue;
    entry += 1;
    const at = pair.indexOf('=');
    const id = at > 0 ? pair.slice(0, at) : '';
    // The text is not echoed: an entry without its id may be a bare key (`...=` is its padding).
    if (!KEY_ID_PATTERN.test(id) || at === pair.length - 1) {
      throw new Error(
        `${source}: entry ${entry} is not id=base64key (an id of letters, digits, . _ : -, at most 64 ` +
          'characters, then "=", then the key)',
      );
    }
    if (keys.has(id)) throw new Error(`${source}: key id "${id}" is listed twice`);
    keys.set(id, decodeKey(pair.slice(at + 1), `${source}: the key of "${id}"`));
  }
  return keys;
}

/** The codec keys the environment configures, or undefined when encryption is off. */
export function codecKeysFromEnv(env: NodeJS.ProcessEnv): CodecKeys | undefined {
  const inline = env.MCP_CODEC_KEYS?.trim();
  const file = env.MCP_CODEC_KEYS_FILE?.trim();
  const current = env.MCP_CODEC_KEY_ID?.trim();
  if (inline && file) throw new Error('set MCP_CODEC_KEYS or MCP_CODEC_KEYS_FILE, not both');
  if (!inline && !file) {
    if (current)
      throw new Error('MCP_CODEC_KEY_ID is set but no key is (MCP_CODEC_KEYS or MCP_CODEC_KEYS_FILE)');
    return undefined;
  }
  let keys: Map<string, Buffer>;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(
        `MCP_CODEC_KEYS_FILE: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    keys = parseCodecKeys(text, `MCP_CODEC_KEYS_FILE (${file})`);
  } else {
    keys = parseCodecKeys(inline as string, 'MCP_CODEC_KEYS');
  }
  const source = file ? 'MCP_CODEC_KEYS_FILE' : 'MCP_CODEC_KEYS';
  if (keys.size === 0) throw new Error(`${source} lists no id=base64key pair`);
  if (!current) {
    if (keys.size > 1) {
      throw new Error(
        `MCP_CODEC_KEY_ID must name the key that encrypts (one of: ${[...keys.keys()].join(', ')})`,
      );
    }
    return { current: [...keys.keys()][0] as string, keys };
  }
  if (!keys.has(current)) {
    throw new Error(
      `MCP_CODEC_KEY_ID "${current}" is not among the ids of ${source} (${[...keys.keys()].join(', ')})`,
    );
  }
  return { current, keys };
}

/** The codec the environment configures, or undefined. */
export function codecFromEnv(env: NodeJS.ProcessEnv): EncryptionCodec | undefined {
  const keys = codecKeysFromEnv(env);
  return keys ? new EncryptionCodec(keys) : undefined;
}

/** One line for the start-up log: which key encrypts, which only decrypt (ids only). */
export function describeCodec(keys: CodecKeys | undefined): string {
  if (!keys) return 'payload encryption off (no MCP_CODEC_KEYS)';
  const older = [...keys.keys.keys()].filter((id) => id !== keys.current);
  return (
    `payloads encrypted (AES-256-GCM) with key id "${keys.current}"` +
    (older.length ? `; older key ids read only: ${older.join(', ')}` : '')
  );
}
