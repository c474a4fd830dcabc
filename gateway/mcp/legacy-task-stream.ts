// A 2025-11-25 task followed on its tasks/result stream, as the revision has it: the task's status
// sent as notifications/tasks/status when it changes, each input request the run makes sent once as
// a request to the client (answered on its own POST: legacy-task-input.ts), until the run ends or
// the stream's bound. The stream is counted with the push streams and served by the task's one
// watch (subscriptions-listen.ts, task-watches.ts): no Temporal call of its own while it waits.
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import type { Caller } from '../shared/caller.ts';
import type { ExecutionView } from '../temporal/run-state.ts';
import type { Catalog, CatalogTool } from './catalog.ts';
import { inputRequestId, whenRefused } from './legacy-task-input.ts';
import { type LegacyTask, legacyTask, RELATED_TASK } from './legacy-task-shapes.ts';
import type { TaskTiming } from './poll-pacing.ts';
import type { TaskSubscriptions } from './subscriptions-listen.ts';
import { type DetailedTask, detailedTask } from './task-shapes.ts';

/** How long a stream waits with nothing changing (a person may be answering): then it answers. */
const STREAM_WAIT_MS = 5 * 60_000;

/** What the stream of one tasks/result carries before its answer. */
export interface ResultStream {
  status(task: LegacyTask): Promise<void>;
  ask(id: string, request: InputRequest, taskId: string): Promise<void>;
  /** The client left, or the gateway stops. */
  ended: AbortSignal;
}

/** The stream of the request `ctx` serves (the revision's responses are SSE streams). */
export function resultStream(server: Server, ctx: ServerContext, stopping: AbortSignal): ResultStream {
  const send = async (message: Record<string, unknown>) => {
    await server.transport?.send({ jsonrpc: '2.0', ...message } as never, {
      relatedRequestId: ctx.mcpReq.id,
    });
  };
  return {
    status: (task) => send({ method: 'notifications/tasks/status', params: task }),
    ask: (id, request, taskId) => {
      const params = request.params as Record<string, unknown>;
      const meta = { ...(params._meta as object | undefined), [RELATED_TASK]: { taskId } };
      return send({ id, method: request.method, params: { ...params, _meta: meta } });
    },
    ended: AbortSignal.any([ctx.mcpReq.signal, stopping]),
  };
}

export interface FollowedTask {
  view: ExecutionView;
  tool: CatalogTool;
}

/**
 * Follows a task that has not ended: the run's input requests asked on the stream, its status told
 * as it changes. Ends when the run ends, the client leaves or the gateway stops, the client cannot
 * answer a request, or nothing has changed for STREAM_WAIT_MS; resolves with the task as last seen.
 */
export async function followOnStream(
  followed: FollowedTask,
  caller: Caller,
  deps: { catalog: Catalog; timing: TaskTiming; subscriptions: TaskSubscriptions },
  stream: ResultStream,
): Promise<FollowedTask> {
  let last = followed;
  // A task that had ended before its tasks/result is answered without a word before.
  if (ended(detailedTask(last.view, last.tool, deps.timing))) return last;
  const done = new AbortController();
  const refusals: (() => void)[] = [];
  let quietTimer: NodeJS.Timeout | undefined;
  const toldNow = () => {
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => done.abort(), STREAM_WAIT_MS);
  };
  const asked = new Set<string>();
  let told: string | undefined;
  // Each change in order: the status when it changed, then the requests not asked yet.
  const tell = async (task: DetailedTask, view: ExecutionView) => {
    last = { view, tool: deps.catalog.toolOfRun(view.tool) };
    if (task.status !== told) {
      await stream.status(legacyTask(view, last.tool, deps.timing));
      told = task.status;
      toldNow();
    }
    if (ended(task)) return done.abort();
    if (task.status !== 'input_required') return;
    for (const [key, request] of Object.entries(task.inputRequests)) {
      if (asked.has(key)) continue;
      asked.add(key);
      const id = inputRequestId(task.taskId, key);
      refusals.push(whenRefused(id, () => done.abort()));
      await stream.ask(id, request, task.taskId);
      toldNow();
    }
  };
  let telling: Promise<void> = Promise.resolve();
  const push = (task: DetailedTask, view: ExecutionView) => {
    telling = telling.then(() => tell(task, view)).catch(() => done.abort());
  };
  try {
    toldNow();
    const signal = AbortSignal.any([stream.ended, done.signal]);
    await deps.subscriptions.follow(followed.view, caller, push, signal);
    await telling;
    return last;
  } finally {
    clearTimeout(quietTimer);
    for (const stop of refusals) stop();
  }
}

function ended(task: DetailedTask): boolean {
  return task.status !== 'working' && task.status !== 'input_required';
}
