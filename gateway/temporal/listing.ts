// Listing a caller's runs through Temporal's visibility: the completed ones, newest first, with
// their results (resources/list reads artifact references from them), a few results at a time: a
// result may be megabytes.
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { Caller } from '../shared/caller.ts';
import type { TemporalCalls } from './client.ts';
import { GRPC, grpcCode, InvalidCursorError } from './errors.ts';
import { MCP_PRINCIPAL, principalKeyword } from './run-memo.ts';
import { type ListedState, listedState, timestampMs } from './run-state.ts';
import type { RunViews } from './view.ts';
import { outcomeOf } from './wait.ts';

type ListPage = Awaited<ReturnType<Client['workflowService']['listWorkflowExecutions']>>;
type ListedExecution = NonNullable<ListPage['executions']>[number];

/** `value` as a string literal of the visibility query language (a principal may hold quotes). */
export function visibilityString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Results held at once by one listing (each up to Temporal's blob limit, 2 MB by default). */
const RESULTS_AT_ONCE = 2;

export interface CompletedRuns {
  /** `result`: what the page's `keep` kept of it. */
  runs: { workflowId: string; result: unknown }[];
  /** The next page's cursor, when there is one. */
  cursor?: string;
}

/** One of the caller's runs as visibility lists it, for a task list. */
export interface ListedRun {
  workflowId: string;
  /** Its status alone: visibility tells no progress, result or failure. */
  state: ListedState;
  startedAt: Date;
  closedAt?: Date;
}

export class RunListing {
  constructor(
    private readonly calls: TemporalCalls,
    private readonly views: RunViews,
  ) {}

  /** One page of the caller's runs, any status, newest first (a 2025-11-25 tasks/list). */
  async all(
    caller: Caller,
    cursor: string | undefined,
    size: number,
  ): Promise<{ runs: ListedRun[]; cursor?: string }> {
    const listed = await this.page(
      `${MCP_PRINCIPAL.name} = ${visibilityString(principalKeyword(caller.principal))}`,
      cursor,
      size,
    );
    const tasks = await this.tasksOf(listed, caller);
    const runs = tasks.flatMap(({ taskId, execution }): ListedRun[] => {
      const startedMs = timestampMs(execution.startTime);
      if (startedMs === undefined) return [];
      const closedMs = timestampMs(execution.closeTime);
      const closed = closedMs === undefined ? {} : { closedAt: new Date(closedMs) };
      const state = listedState(execution.status);
      return [{ workflowId: taskId, state, startedAt: new Date(startedMs), ...closed }];
    });
    const token = listed.nextPageToken;
    return {
      runs,
      ...(token && token.length > 0 ? { cursor: Buffer.from(token).toString('base64url') } : {}),
    };
  }

  /**
   * The listed runs that are the caller's tasks, with their task ids: a run under the cap names its
   * task key in its memo (its workflow id is its slot's), any other is its workflow id.
   */
  private async tasksOf(
    listed: ListPage,
    caller: Caller,
  ): Promise<{ taskId: string; execution: ListedExecution }[]> {
    const tasks = await Promise.all(
      (listed.executions ?? []).map(async (execution) => {
        const workflowId = execution.execution?.workflowId;
        const runId = execution.execution?.runId;
        if (!workflowId || !runId) return undefined;
        const memoTask = await this.memoField(execution.memo?.fields?.task);
        const taskId = this.views.listedTask({ workflowId, runId, memoTask }, caller);
        return taskId ? { taskId, execution } : undefined;
      }),
    );
    return tasks.filter((task) => task !== undefined);
  }

  /** One memo field as the client's data converter reads it (through its codecs); undefined when it cannot. */
  private async memoField(payload: Payload | null | undefined): Promise<unknown> {
    if (!payload) return undefined;
    const converter = this.calls.client.options.loadedDataConverter;
    try {
      let decoded = payload;
      for (const codec of [...converter.payloadCodecs].reverse())
        [decoded] = (await codec.decode([decoded])) as [Payload];
      return converter.payloadConverter.fromPayload(decoded);
    } catch {
      return undefined;
    }
  }

  /** One page of visibility's answer to `query`; a cursor it does not know is InvalidCursorError. */
  private async page(query: string, cursor: string | undefined, pageSize: number): Promise<ListPage> {
    const { client, options } = this.calls;
    try {
      return await this.calls.call(() =>
        client.workflowService.listWorkflowExecutions({
          namespace: options.namespace,
          pageSize,
          query,
          ...(cursor ? { nextPageToken: Buffer.from(cursor, 'base64url') } : {}),
        }),
      );
    } catch (err) {
      if (cursor && grpcCode(err) === GRPC.INVALID_ARGUMENT) throw new InvalidCursorError();
      throw err;
    }
  }

  /**
   * One page of the caller's completed runs, newest first, with their results. `cursor` is the page
   * token of the page before (the visibility store's own, base64url); the query names the caller,
   * so no cursor reaches another caller's runs.
   */
  async completed(
    caller: Caller,
    cursor: string | undefined,
    page: {
      size: number;
      include: (workflowId: string) => boolean;
      /** What to keep of a result (the whole result is dropped as soon as it is read). */
      keep: (result: unknown) => unknown;
    },
  ): Promise<CompletedRuns> {
    const { client } = this.calls;
    const query = `${MCP_PRINCIPAL.name} = ${visibilityString(principalKeyword(caller.principal))} AND ExecutionStatus = 'Completed'`;
    const listed = await this.page(query, cursor, page.size);
    const tasks = (await this.tasksOf(listed, caller)).filter(({ taskId }) => page.include(taskId));
    const runs: CompletedRuns['runs'] = [];
    for (let at = 0; at < tasks.length; at += RESULTS_AT_ONCE) {
      const batch = tasks.slice(at, at + RESULTS_AT_ONCE).map(async ({ taskId, execution }) => {
        const run = {
          workflowId: String(execution.execution?.workflowId),
          runId: execution.execution?.runId ?? '',
        };
        const state = await this.calls.call(() => outcomeOf(client, run)).catch(() => undefined);
        return {
          workflowId: taskId,
          result: state?.status === 'completed' ? page.keep(state.result) : undefined,
        };
      });
      runs.push(...(await Promise.all(batch)));
    }
    const token = listed.nextPageToken;
    return {
      runs,
      ...(token && token.length > 0 ? { cursor: Buffer.from(token).toString('base64url') } : {}),
    };
  }
}
