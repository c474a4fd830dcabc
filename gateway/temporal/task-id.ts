// Task ids are workflow ids nobody can guess and that name their owner: `<tool prefix>-` then a
// 128-bit body (random, or an idempotency key's HMAC) followed by a 64-bit owner tag,
// HMAC(server secret, principal, prefix, body). The gateway tells whether an id is the caller's without
// asking Temporal, so another caller's task and one that never existed are refused alike, at once,
// and a poll's Temporal calls can run side by side; the prefix says which tool's progress query to
// send along. Pure.
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
export function ownedTaskId(secret: Buffer, principal: string, prefix: string, body: Buffer): string {
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
