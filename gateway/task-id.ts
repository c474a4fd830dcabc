// Task ids are workflow ids nobody can guess: 128 random bits, base64url.
import { randomBytes } from 'node:crypto';

export const TASK_ID_PREFIX = 'mine-';

export function newTaskId(): string {
  return `${TASK_ID_PREFIX}${randomBytes(16).toString('base64url')}`;
}
