// Task ids: `<tool prefix>-` then a 128-bit body (random, or an idempotency key's HMAC) and a
// 64-bit owner tag, HMAC(server secret, principal, prefix, body). Whether an id is the caller's is
// told without asking Temporal, so another caller's task and one that never existed are refused
// alike, at once; the prefix names the tool. Pure.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BODY_BYTES = 16;
const TAG_BYTES = 8;
/** base64url length of body + tag. */
const ENCODED_LENGTH = Math.ceil(((BODY_BYTES + TAG_BYTES) * 4) / 3);

function ownerTag(secret: Buffer, principal: string, prefix: string, body: Buffer): Buffer {
  const mac = createHmac('sha256', secret).update(JSON.stringify(['mcp-task-owner/v2', principal, prefix]));
  return mac.update(body).digest().subarray(0, TAG_BYTES);
}

/** The task id of `body` (16 bytes) for `principal`, under the tool's id prefix. */
function ownedTaskId(secret: Buffer, principal: string, prefix: string, body: Buffer): string {
  if (body.length !== BODY_BYTES) throw new Error(`a task id body is ${BODY_BYTES} bytes`);
  const bytes = Buffer.concat([body, ownerTag(secret, principal, prefix, body)]);
  return `${prefix}-${bytes.toString('base64url')}`;
}

/** A fresh task id for `principal`: 128 random bits. */
export function newTaskId(secret: Buffer, principal: string, prefix: string): string {
  return ownedTaskId(secret, principal, prefix, randomBytes(BODY_BYTES));
}

/** The id prefix of a well-formed task id (it names the tool), or undefined. */
export function taskIdPrefix(taskId: string): string | undefined {
  const dash = taskId.length - ENCODED_LENGTH - 1;
  return dash > 0 && taskId[dash] === '-' ? taskId.slice(0, dash) : undefined;
}

/** Whether `taskId` is a well-formed id this server issued to `principal` (constant time in the tag). */
export function isOwnedBy(secret: Buffer, principal: string, taskId: string): boolean {
  const prefix = taskIdPrefix(taskId);
  if (prefix === undefined) return false;
  const encoded = taskId.slice(taskId.length - ENCODED_LENGTH);
  const bytes = Buffer.from(encoded, 'base64url');
  // Node's decoder skips characters outside the alphabet: only the exact encoding counts.
  if (bytes.length !== BODY_BYTES + TAG_BYTES || bytes.toString('base64url') !== encoded) return false;
  const body = bytes.subarray(0, BODY_BYTES);
  return timingSafeEqual(bytes.subarray(BODY_BYTES), ownerTag(secret, principal, prefix, body));
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
  return ownedTaskId(secret, principal, tool.idPrefix, mac.digest().subarray(0, 16));
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
