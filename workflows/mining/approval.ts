// Asking a person whether to publish a mined chain: the request shown to them, and how their
// answer is read. Pure functions; the waiting happens in the workflow.
import type { ChainResult, ElicitationResponse, InputRequest, InputResponse } from './types.ts';

export const APPROVAL_KEY_PREFIX = 'approve-publish';
export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export function approvalRequest(chain: Omit<ChainResult, 'publication'>, retryReason?: string): InputRequest {
  const message =
    `${retryReason ? `${retryReason} ` : ''}Publish the mined chain of ${chain.blocks.length} block(s) ` +
    `(difficulty ${chain.difficulty}, data "${chain.data}") with final hash ${chain.finalHash} to the ledger?`;
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          approve: {
            type: 'boolean',
            title: 'Publish',
            description: 'true publishes the chain; false does not',
          },
          note: { type: 'string', title: 'Note', description: 'Optional note kept with the decision' },
        },
        required: ['approve'],
      },
    },
  };
}

export type ApprovalDecision =
  | { kind: 'approved'; note?: string }
  | { kind: 'declined'; action: ElicitationResponse['action']; note?: string }
  | { kind: 'invalid'; reason: string };

/** Reads an answer: accept with approve=true publishes; accept with false, decline and cancel do not. */
export function readApproval(answer: InputResponse): ApprovalDecision {
  const response = answer as Partial<ElicitationResponse>;
  if (response.action === undefined)
    return { kind: 'invalid', reason: 'The previous answer was not a form answer.' };
  const note = typeof response.content?.note === 'string' ? response.content.note : undefined;
  if (response.action !== 'accept') return { kind: 'declined', action: response.action, note };
  const approve = response.content?.approve;
  if (typeof approve !== 'boolean') {
    return { kind: 'invalid', reason: 'The previous answer had no true/false "approve" field.' };
  }
  return approve ? { kind: 'approved', note } : { kind: 'declined', action: 'accept', note };
}
