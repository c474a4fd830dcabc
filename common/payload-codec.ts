// End-to-end encryption of Temporal payloads (AES-256-GCM), in the format the encryption samples of
// Temporal's Python and Go SDKs use, so workers in any language read and write the same history:
// the whole Payload message is serialized (protobuf) and encrypted; the stored payload's data is a
// 12-byte random nonce followed by the ciphertext and its 16-byte tag, and its metadata is
// `encoding: binary/encrypted` and `encryption-key-id: <id>`. Payloads of any other encoding pass
// through unchanged, so history written before encryption was turned on stays readable.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

const ProtoPayload = proto.temporal.api.common.v1.Payload;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/** The keys of a codec: `current` encrypts; every key (current included) decrypts. */
export interface CodecKeys {
  current: string;
  /** key id → 32-byte AES-256 key. */
  keys: ReadonlyMap<string, Buffer>;
}

/** A payload that cannot be decrypted: never read as plaintext, never a crash of the process. */
export class UndecryptablePayloadError extends Error {
  constructor(
    /** The key id the payload names ('' when it names none). */
    readonly keyId: string,
    readonly reason: 'unknown_key' | 'tampered' | 'missing_key_id',
  ) {
    super(
      reason === 'unknown_key'
        ? `an encrypted payload names key id "${keyId}", which is not among this process's codec keys`
        : reason === 'missing_key_id'
          ? `an encrypted payload carries no ${KEY_ID_METADATA}`
          : `an encrypted payload under key id "${keyId}" fails authentication (tampered, or another key of that id)`,
    );
    this.name = 'UndecryptablePayloadError';
  }
}

const utf8 = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : '');

export class EncryptionCodec implements PayloadCodec {
  private readonly currentKey: Buffer;
  private readonly currentIdBytes: Buffer;

  constructor(readonly keys: CodecKeys) {
    const key = keys.keys.get(keys.current);
    if (!key) throw new Error(`the current codec key id "${keys.current}" has no key`);
    this.currentKey = key;
    this.currentIdBytes = Buffer.from(keys.current, 'utf8');
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encryptOne(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decryptOne(payload));
  }

  encryptOne(payload: Payload): Payload {
    const plain = ProtoPayload.encode(payload).finish();
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey, nonce);
    const data = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: this.currentIdBytes },
      data,
    };
  }

  decryptOne(payload: Payload): Payload {
    if (utf8(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
    const keyIdBytes = payload.metadata?.[KEY_ID_METADATA];
    if (!keyIdBytes) throw new UndecryptablePayloadError('', 'missing_key_id');
    const keyId = utf8(keyIdBytes);
    const key = this.keys.keys.get(keyId);
    if (!key) throw new UndecryptablePayloadError(keyId, 'unknown_key');
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < NONCE_BYTES + TAG_BYTES) throw new UndecryptablePayloadError(keyId, 'tampered');
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([
        decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new UndecryptablePayloadError(keyId, 'tampered');
    }
    const decoded = ProtoPayload.decode(plain);
    return { metadata: decoded.metadata, data: decoded.data };
  }
}
