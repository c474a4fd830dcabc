// Task ids: `<tool prefix>-` then a 128-bit body (random, or an idempotency key's HMAC) and a
// 64-bit owner tag, HMAC(server secret, principal, prefix, body). Whether an id is the caller's is
// told without asking Temporal, so another caller's task and one that never existed are refused
// alike, at once; the prefix names the tool. Under the running-task cap an id also names the slot
// its run holds (slots.ts): `<tool prefix>~` then body, slot (2 bytes), tag, the tag over the slot
// too (`~` is in no prefix nor in base64url, so the two forms never read as each other). Pure.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BODY_BYTES = 16;
const SLOT_BYTES = 2;
const TAG_BYTES = 8;
/** The most slots an id can name. */
export const MAX_SLOTS = 2 ** (8 * SLOT_BYTES);
/** base64url lengths of body + tag, and of body + slot + tag. */
const PLAIN_LENGTH = encodedLength(BODY_BYTES + TAG_BYTES);
const SLOTTED_LENGTH = encodedLength(BODY_BYTES + SLOT_BYTES + TAG_BYTES);
/** The two forms: encoded length, the separator before it, decoded length. */
const FORMS: [number, string, number][] = [
  [SLOTTED_LENGTH, '~', BODY_BYTES + SLOT_BYTES + TAG_BYTES],
  [PLAIN_LENGTH, '-', BODY_BYTES + TAG_BYTES],
];

function encodedLength(bytes: number): number {
  return Math.ceil((bytes * 4) / 3);
}

function ownerTag(secret: Buffer, principal: string, prefix: string, named: Buffer): Buffer {
  const version = named.length === BODY_BYTES ? 'mcp-task-owner/v2' : 'mcp-task-owner/v3';
  const mac = createHmac('sha256', secret).update(JSON.stringify([version, principal, prefix]));
  return mac.update(named).digest().subarray(0, TAG_BYTES);
}

/**
 * The task id of `named` (the 16-byte body, then the slot when there is one) for `principal`, under
 * the tool's id prefix.
 */
function ownedTaskId(secret: Buffer, principal: string, prefix: string, named: Buffer): string {
  const bytes = Buffer.concat([named, ownerTag(secret, principal, prefix, named)]);
  const separator = named.length === BODY_BYTES ? '-' : '~';
  return `${prefix}${separator}${bytes.toString('base64url')}`;
}

/** The body, and the slot when there is one, as a task id names them. */
function named(body: Buffer, slot?: number): Buffer {
  if (body.length !== BODY_BYTES) throw new Error(`a task id body is ${BODY_BYTES} bytes`);
  return slot === undefined ? body : Buffer.concat([body, slotBytes(slot)]);
}

function slotBytes(slot: number): Buffer {
  if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_SLOTS) throw new Error(`slot ${slot} out of range`);
  const bytes = Buffer.alloc(SLOT_BYTES);
  bytes.writeUInt16BE(slot);
  return bytes;
}

/** A fresh task id for `principal`: 128 random bits, and the slot its run holds under the cap. */
export function newTaskId(secret: Buffer, principal: string, prefix: string, slot?: number): string {
  return ownedTaskId(secret, principal, prefix, named(randomBytes(BODY_BYTES), slot));
}

/** The same task id naming another slot (a start that tries slots one after another). */
export function inSlot(secret: Buffer, principal: string, taskId: string, slot: number): string {
  const parsed = parse(taskId);
  if (!parsed) throw new Error('not a task id');
  return ownedTaskId(secret, principal, parsed.prefix, named(parsed.bytes.subarray(0, BODY_BYTES), slot));
}

interface ParsedId {
  prefix: string;
  bytes: Buffer;
  /** The slot it names, when it names one. */
  slot?: number;
}

/** A well-formed task id's parts; undefined for anything else. */
function parse(taskId: string): ParsedId | undefined {
  for (const [length, separator, bytes] of FORMS) {
    const at = taskId.length - length - 1;
    if (at <= 0 || taskId[at] !== separator) continue;
    const encoded = taskId.slice(at + 1);
    const decoded = Buffer.from(encoded, 'base64url');
    // Node's decoder skips characters outside the alphabet: only the exact encoding counts.
    if (decoded.length !== bytes || decoded.toString('base64url') !== encoded) return undefined;
    const prefix = taskId.slice(0, at);
    return separator === '~'
      ? { prefix, bytes: decoded, slot: decoded.readUInt16BE(BODY_BYTES) }
      : { prefix, bytes: decoded };
  }
  return undefined;
}

/** The id prefix of a well-formed task id (it names the tool), or undefined. */
export function taskIdPrefix(taskId: string): string | undefined {
  return parse(taskId)?.prefix;
}

/** The slot a task id names (a run started under the running-task cap), or undefined. */
export function taskSlot(taskId: string): number | undefined {
  return parse(taskId)?.slot;
}

/** The workflow id of `principal`'s slot `slot` of the running-task cap (slots.ts). */
export function slotWorkflowId(secret: Buffer, principal: string, slot: number): string {
  const tag = createHmac('sha256', secret)
    .update(`running-task-slot:${principal}`)
    .digest('base64url')
    .slice(0, 22);
  return `mcp-run-${tag}-${slot}`;
}

/** The workflow id a task runs under: its slot's when it names one, else the task id itself. */
export function taskWorkflowId(secret: Buffer, principal: string, taskId: string): string {
  const slot = taskSlot(taskId);
  return slot === undefined ? taskId : slotWorkflowId(secret, principal, slot);
}

/** Whether `taskId` is a well-formed id this server issued to `principal` (constant time in the tag). */
export function isOwnedBy(secret: Buffer, principal: string, taskId: string): boolean {
  const parsed = parse(taskId);
  if (!parsed) return false;
  const named = parsed.bytes.subarray(0, parsed.bytes.length - TAG_BYTES);
  const tag = parsed.bytes.subarray(parsed.bytes.length - TAG_BYTES);
  return timingSafeEqual(tag, ownerTag(secret, principal, parsed.prefix, named));
}

/**
 * The task id of an idempotent start: 128 bits of HMAC(secret, principal, tool, key) as its body,
 * owned like any other, so a retried start names the same workflow.
 */
export function keyedTaskId(
  secret: Buffer,
  principal: string,
  tool: { name: string; idPrefix: string },
  key: string,
): string {
  const mac = createHmac('sha256', secret).update(
    JSON.stringify(['mcp-task-id/v1', principal, tool.name, key]),
  );
  return ownedTaskId(secret, principal, tool.idPrefix, named(mac.digest().subarray(0, 16)));
}

/**
 * Where a keyed start under the cap begins to try slots, and the request id it starts with in each:
 * both drawn from the key, so a retry (after a gateway died between the run's start and its key's
 * record) tries the same slots first, and Temporal answers its start in the slot the first start
 * took with that run, not a second one.
 */
export function keyedSlotStart(
  secret: Buffer,
  keyId: string,
): { first: number; requestId(slot: number): string } {
  const mac = (what: unknown) =>
    createHmac('sha256', secret)
      .update(JSON.stringify(['mcp-keyed-start/v1', keyId, what]))
      .digest();
  return {
    first: mac('first').readUInt32BE(0),
    requestId: (slot) => {
      const hex = mac(slot).toString('hex');
      return [
        hex.slice(0, 8),
        hex.slice(8, 12),
        hex.slice(12, 16),
        hex.slice(16, 20),
        hex.slice(20, 32),
      ].join('-');
    },
  };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** The argument names whose values differ between the stored start and this one (sorted). */
export function differingArguments(
  stored: Record<string, unknown>,
  given: Record<string, unknown>,
): string[] {
  const names = new Set([...Object.keys(stored), ...Object.keys(given)]);
  return [...names]
    .filter((name) => JSON.stringify(canonical(stored[name])) !== JSON.stringify(canonical(given[name])))
    .sort();
}
