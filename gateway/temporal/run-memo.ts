// What a run carries: the memo (tool, arguments, principal, client) and the search attributes that
// find it (the Web UI's texts are written by start.ts).
import { createHash } from 'node:crypto';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { RequestOrigin } from '../shared/caller.ts';

export const MCP_TOOL = defineSearchAttributeKey('McpTool', SearchAttributeType.KEYWORD);
export const MCP_PRINCIPAL = defineSearchAttributeKey('McpPrincipal', SearchAttributeType.KEYWORD);

/**
 * A principal as McpPrincipal holds it and visibility queries name it: itself when plain, else
 * `#sha256:` and its digest. Temporal's SQL visibility matches no string literal holding `"` or `\`
 * (an OAuth subject may), so no query depends on escaping; `#` is never in a plain one.
 */
export function principalKeyword(principal: string): string {
  if (/^[A-Za-z0-9 ._@:|+=~/-]{1,200}$/.test(principal)) return principal;
  return `#sha256:${createHash('sha256').update(principal).digest('hex')}`;
}

/** What the gateway stores in a run's memo. */
export interface RunMemo {
  tool: string;
  /** The task id, for a run under the running-task cap (its workflow id is its slot's). */
  task?: string;
  /**
   * When the gateway started the run (ISO time): the task's createdAt, the same in the handle a
   * start answers with and in every later view, with no describe needed for the handle.
   */
  createdAt?: string;
  arguments: Record<string, unknown>;
  principal: string;
  /** The MCP client and protocol revision that started the run. */
  origin?: RequestOrigin;
  /** The W3C trace context of the start, when the gateway traced it: polls and pushes link to it. */
  trace?: RunTrace;
  /**
   * The progress the run published (PROGRESS_MEMO of the contract): the workflow's own key, set to
   * `{}` at the start of a run of a tool that publishes, so a run without it is one that does not.
   */
  'mcp.progress'?: unknown;
}

/** A W3C trace context as the memo keeps it. */
export interface RunTrace {
  traceparent?: string;
  tracestate?: string;
}
