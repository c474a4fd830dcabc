// Listing a caller's runs through Temporal's visibility: the completed ones, newest first, with
// their results (resources/list reads artifact references from them).
import type { Client } from '@temporalio/client';
import type { TemporalCalls } from './client.ts';
import { GRPC, grpcCode, InvalidCursorError } from './errors.ts';
import { type Caller, MCP_PRINCIPAL } from './run-memo.ts';
import type { RunViews } from './view.ts';
import { outcomeOf } from './wait.ts';

type ListPage = Awaited<ReturnType<Client['workflowService']['listWorkflowExecutions']>>;

/** `value` as a string literal of the visibility query language (a principal may hold quotes). */
export function visibilityString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export interface CompletedRuns {
  runs: { workflowId: string; result: unknown }[];
  /** The next page's cursor, when there is one. */
  cursor?: string;
}

export class RunListing {
  constructor(
    private readonly calls: TemporalCalls,
    private readonly views: RunViews,
  ) {}

  /**
   * One page of the caller's completed runs, newest first, with their results. `cursor` is the page
   * token of the page before (the visibility store's own, base64url); the query names the caller,
   * so no cursor reaches another caller's runs.
   */
  async completed(caller: Caller, cursor?: string, pageSize = 20): Promise<CompletedRuns> {
    const { client, options } = this.calls;
    let page: ListPage;
    try {
      page = await this.calls.call(() =>
        client.workflowService.listWorkflowExecutions({
          namespace: options.namespace,
          pageSize,
          query: `${MCP_PRINCIPAL.name} = ${visibilityString(caller.principal)} AND ExecutionStatus = 'Completed'`,
          ...(cursor ? { nextPageToken: Buffer.from(cursor, 'base64url') } : {}),
        }),
      );
    } catch (err) {
      if (cursor && grpcCode(err) === GRPC.INVALID_ARGUMENT) throw new InvalidCursorError();
      throw err;
    }
    const ids = (page.executions ?? [])
      .map((execution) => execution.execution?.workflowId)
      .filter((id): id is string => typeof id === 'string' && this.views.owns(id, caller));
    const runs = await Promise.all(
      ids.map(async (workflowId) => {
        const state = await this.calls.call(() => outcomeOf(client, workflowId)).catch(() => undefined);
        return { workflowId, result: state?.status === 'completed' ? state.result : undefined };
      }),
    );
    const token = page.nextPageToken;
    return {
      runs,
      ...(token && token.length > 0 ? { cursor: Buffer.from(token).toString('base64url') } : {}),
    };
  }
}
