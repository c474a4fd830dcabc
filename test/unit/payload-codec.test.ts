// The payload codec and its settings, without a server: the stored layout, rotation, and every
// refusal (unknown key id, tampered data, bad settings) with a message that names the key id or the
// variable and never a key.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { codecFromEnv, codecKeysFromEnv, describeCodec } from '../../common/codec-settings.ts';
import {
  ENCRYPTED_ENCODING,
  type EncryptionCodec,
  KEY_ID_METADATA,
  UndecryptablePayloadError,
} from '../../common/payload-codec.ts';

const KEY_A = Buffer.alloc(32, 1).toString('base64');
const KEY_B = Buffer.alloc(32, 2).toString('base64');
const codecOf = (env: Record<string, string>) => codecFromEnv(env) as EncryptionCodec;
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString();

describe('the encryption codec', () => {
  const codec = codecOf({ MCP_CODEC_KEYS: `a=${KEY_A}` });
  const plain = defaultPayloadConverter.toPayload({ card: '4111 1111 1111 1111' }) as Payload;

  test('stores the serialized payload as nonce + AES-256-GCM ciphertext + tag, with the key id', async () => {
    const [sealed] = await codec.encode([plain]);
    assert.ok(sealed);
    assert.deepEqual(Object.keys(sealed.metadata ?? {}).sort(), ['encoding', KEY_ID_METADATA]);
    assert.equal(text(sealed.metadata?.encoding), ENCRYPTED_ENCODING);
    assert.equal(text(sealed.metadata?.[KEY_ID_METADATA]), 'a');
    const serialized = proto.temporal.api.common.v1.Payload.encode(plain).finish();
    assert.equal(sealed.data?.length, 12 + serialized.length + 16);
    assert.ok(!text(sealed.data).includes('4111'));
    const [again] = await codec.encode([plain]);
    assert.notDeepEqual(again?.data, sealed.data, 'a fresh nonce each time');
    const [opened] = await codec.decode([sealed]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened as Payload), { card: '4111 1111 1111 1111' });
  });

  test('payloads of another encoding pass through decode unchanged', async () => {
    assert.deepEqual(await codec.decode([plain]), [plain]);
  });

  test('rotation: the new key writes, the old one still reads', async () => {
    const [old] = await codec.encode([plain]);
    const rotated = codecOf({ MCP_CODEC_KEYS: `b=${KEY_B},a=${KEY_A}`, MCP_CODEC_KEY_ID: 'b' });
    const [fresh] = await rotated.encode([plain]);
    assert.equal(text(fresh?.metadata?.[KEY_ID_METADATA]), 'b');
    const opened = await rotated.decode([old as Payload, fresh as Payload]);
    assert.deepEqual(
      opened.map((p) => defaultPayloadConverter.fromPayload(p)),
      [{ card: '4111 1111 1111 1111' }, { card: '4111 1111 1111 1111' }],
    );
  });

  test('an unknown key id, tampered data, another key under the same id: refused naming the key id', async () => {
    const [sealed] = (await codec.encode([plain])) as [Payload];
    const other = codecOf({ MCP_CODEC_KEYS: `b=${KEY_B}` });
    await assert.rejects(
      other.decode([sealed]),
      (err) =>
        err instanceof UndecryptablePayloadError &&
        err.keyId === 'a' &&
        err.reason === 'unknown_key' &&
        /key id "a"/.test(err.message),
    );
    const data = Buffer.from(sealed.data as Uint8Array);
    data[15] = (data[15] as number) ^ 1;
    await assert.rejects(
      codec.decode([{ ...sealed, data }]),
      (err) => err instanceof UndecryptablePayloadError && err.keyId === 'a' && err.reason === 'tampered',
    );
    const sameIdOtherKey = codecOf({ MCP_CODEC_KEYS: `a=${KEY_B}` });
    await assert.rejects(
      sameIdOtherKey.decode([sealed]),
      (err) => err instanceof UndecryptablePayloadError && err.reason === 'tampered',
    );
    await assert.rejects(
      codec.decode([{ ...sealed, data: Buffer.alloc(10) }]),
      (err) => err instanceof UndecryptablePayloadError && err.reason === 'tampered',
    );
    await assert.rejects(
      codec.decode([{ metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING) }, data: sealed.data }]),
      (err) => err instanceof UndecryptablePayloadError && err.reason === 'missing_key_id',
    );
  });
});

describe('codec settings', () => {
  const refused = (env: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => codecKeysFromEnv(env),
      (err: Error) => message.test(err.message) && !err.message.includes(KEY_A.slice(0, 10)),
    );

  test('off when no key is set', () => {
    assert.equal(codecKeysFromEnv({}), undefined);
    assert.match(describeCodec(undefined), /off/);
  });

  test('one key is the current one; with several, MCP_CODEC_KEY_ID names it', () => {
    assert.equal(codecKeysFromEnv({ MCP_CODEC_KEYS: `only=${KEY_A}` })?.current, 'only');
    const keys = codecKeysFromEnv({ MCP_CODEC_KEYS: `a=${KEY_A}\nb=${KEY_B}`, MCP_CODEC_KEY_ID: 'b' });
    assert.equal(keys?.current, 'b');
    assert.equal(keys?.keys.size, 2);
    assert.equal(
      describeCodec(keys),
      'payloads encrypted (AES-256-GCM) with key id "b"; older key ids read only: a',
    );
    const url = Buffer.alloc(32, 0xfb).toString('base64url');
    assert.equal(codecKeysFromEnv({ MCP_CODEC_KEYS: `u=${url}` })?.keys.get('u')?.[0], 0xfb);
  });

  test('bad values stop the start naming the variable and the key id, never the key', () => {
    refused({ MCP_CODEC_KEYS: `a=${KEY_A},b=${KEY_B}` }, /MCP_CODEC_KEY_ID must name the key that encrypts/);
    refused({ MCP_CODEC_KEYS: `a=${KEY_A}`, MCP_CODEC_KEY_ID: 'z' }, /MCP_CODEC_KEY_ID "z" is not among/);
    refused({ MCP_CODEC_KEY_ID: 'a' }, /MCP_CODEC_KEY_ID is set but no key is/);
    refused(
      { MCP_CODEC_KEYS: `a=${Buffer.alloc(16).toString('base64')}` },
      /the key of "a" is 16 bytes; AES-256 needs 32/,
    );
    refused({ MCP_CODEC_KEYS: 'a=not*base64' }, /the key of "a" is not base64/);
    refused({ MCP_CODEC_KEYS: `a=${KEY_B} ${KEY_A}` }, /entry 2 is not id=base64key/);
    refused({ MCP_CODEC_KEYS: `a=${KEY_A},a=${KEY_B}` }, /key id "a" is listed twice/);
    refused({ MCP_CODEC_KEYS: `a=${KEY_A}`, MCP_CODEC_KEYS_FILE: '/x' }, /not both/);
    refused({ MCP_CODEC_KEYS_FILE: '/nonexistent/keys' }, /MCP_CODEC_KEYS_FILE: cannot read/);
  });

  test('a key file: pairs one a line, comments allowed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'codec-keys-'));
    try {
      const file = join(dir, 'keys');
      writeFileSync(file, `# rotated 2026-12\nnew=${KEY_B}\nold=${KEY_A}\n`);
      const keys = codecKeysFromEnv({ MCP_CODEC_KEYS_FILE: file, MCP_CODEC_KEY_ID: 'new' });
      assert.deepEqual([...(keys?.keys.keys() ?? [])], ['new', 'old']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
