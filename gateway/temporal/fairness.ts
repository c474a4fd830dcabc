// Tenants share the workers fairly through Temporal's own task-queue fairness: every run the gateway
// starts carries its principal as fairness key (with the principal's weight, from the settings) and
// its tool's priority (from the catalog). Activities and child workflows inherit the workflow's
// priority on the server, so the workflows pass nothing on. A server without fairness ignores the
// keys (dispatch stays first come, first served); the gateway says so once at start
// (server-features.ts).
import { createHash } from 'node:crypto';
import type { WorkflowStartOptions } from '@temporalio/client';

/** Temporal takes fairness keys of at most 64 bytes. */
const MAX_KEY_BYTES = 64;

/** Weights per principal (MCP_FAIRNESS_WEIGHTS); a principal not named has Temporal's default, 1. */
export type FairnessWeights = ReadonlyMap<string, number>;

type Priority = NonNullable<WorkflowStartOptions['priority']>;

/**
 * The priority of a run `principal` starts: its fairness key is the principal (a SHA-256 hex digest
 * when longer than 64 bytes), with its weight when the settings give one, and `priorityKey` the
 * tool's priority (1 first, 5 last; Temporal's default, 3, when the catalog gives none).
 */
export function runPriority(principal: string, weights?: FairnessWeights, priorityKey?: number): Priority {
  const weight = weights?.get(principal);
  return {
    fairnessKey: fairnessKey(principal),
    ...(weight === undefined ? {} : { fairnessWeight: weight }),
    ...(priorityKey === undefined ? {} : { priorityKey }),
  };
}

function fairnessKey(principal: string): string {
  return Buffer.byteLength(principal) <= MAX_KEY_BYTES
    ? principal
    : createHash('sha256').update(principal).digest('hex');
}
