// Idempotent starts: with an idempotency_key the task id's body is an HMAC of (server secret,
// principal, tool, key), so a retried start names the same workflow and Temporal's use-existing policy hands
// back the run already there. Pure.
import { createHmac } from 'node:crypto';
import { ownedTaskId } from './task-id.ts';

/** The task id for (principal, tool, key): 128 bits of the HMAC as its body, owned like any other. */
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
