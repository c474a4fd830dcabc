// Task ids are workflow ids nobody can guess and that name their owner: a 128-bit body (random, or
// an idempotency key's HMAC) followed by a 64-bit owner tag, HMAC(server secret, principal, body).
// The gateway tells whether an id is the caller's without asking Temporal, so another caller's task
// and one that never existed are refused alike, at once, and a poll's Temporal calls can run side
// by side. Pure.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TASK_ID_PREFIX = 'mine-';
const BODY_BYTES = 16;
const TAG_BYTES = 8;

function ownerTag(secret: Buffer, principal: string, body: Buffer): Buffer {
  const mac = createHmac('sha256', secret).update(JSON.stringify(['mcp-task-owner/v1', principal]));
  return mac.update(body).digest().subarray(0, TAG_BYTES);
}

/** The task id of `body` (16 bytes) for `principal`. */
export function ownedTaskId(secret: Buffer, principal: string, body: Buffer): string {
  if (body.length !== BODY_BYTES) throw new Error(`a task id body is ${BODY_BYTES} bytes`);
  const bytes = Buffer.concat([body, ownerTag(secret, principal, body)]);
  return `${TASK_ID_PREFIX}${bytes.toString('base64url')}`;
}

/** A fresh task id for `principal`: 128 random bits. */
export function newTaskId(secret: Buffer, principal: string): string {
  return ownedTaskId(secret, principal, randomBytes(BODY_BYTES));
}

/** Whether `taskId` is a well-formed id this server issued to `principal` (constant time in the tag). */
export function isOwnedBy(secret: Buffer, principal: string, taskId: string): boolean {
  if (!taskId.startsWith(TASK_ID_PREFIX)) return false;
  const encoded = taskId.slice(TASK_ID_PREFIX.length);
  const bytes = Buffer.from(encoded, 'base64url');
  // Node's decoder skips characters outside the alphabet: only the exact encoding counts.
  if (bytes.length !== BODY_BYTES + TAG_BYTES || bytes.toString('base64url') !== encoded) return false;
  const body = bytes.subarray(0, BODY_BYTES);
  return timingSafeEqual(bytes.subarray(BODY_BYTES), ownerTag(secret, principal, body));
}
