// A 2025-11-25 task followed on its tasks/result stream, as the revision has it: the task's status
// sent as notifications/tasks/status when it changes, each input request the run makes sent once as
// a request to the client (answered on its own POST: legacy-task-input.ts), until the run ends or
// the stream's bound. One look (a describe) at the start and after each change of the run's history
// (run-changes.ts: Temporal's long poll, no timer).
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import type { ExecutionView } from '../temporal/run-state.ts';
import type { CatalogTool } from './catalog.ts';
import { inputRequestId, whenRefused } from './legacy-task-input.ts';
import { type LegacyTask, legacyTask, RELATED_TASK } from './legacy-task-shapes.ts';
import type { McpDeps } from './method-context.ts';
import { detailedTask } from './task-shapes.ts';

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

/** Looks at the task again (one describe); the caller's own only. */
type Look = () => Promise<FollowedTask>;

/**
 * Follows a task that has not ended: the run's input requests asked on the stream, its status told
 * as it changes. Ends when the run ends, the client leaves or the gateway stops, the client cannot
 * answer a request, or nothing has changed for STREAM_WAIT_MS; resolves with the task as last seen.
 */
export async function followOnStream(
  followed: FollowedTask,
  deps: McpDeps,
  stream: ResultStream,
  look: Look,
): Promise<FollowedTask> {
  const refused = new AbortController();
  const unsubscribe: (() => void)[] = [];
  try {
    return await follow(
      followed,
      deps,
      { ...stream, ended: AbortSignal.any([stream.ended, refused.signal]) },
      {
        look,
        asking: (id) => unsubscribe.push(whenRefused(id, () => refused.abort())),
      },
    );
  } finally {
    for (const done of unsubscribe) done();
  }
}

async function follow(
  followed: FollowedTask,
  deps: McpDeps,
  stream: ResultStream,
  { look, asking }: { look: Look; asking: (id: string) => void },
): Promise<FollowedTask> {
  let { view, tool } = followed;
  const asked = new Set<string>();
  let told: string | undefined;
  // Ends the wait once nothing has been told for STREAM_WAIT_MS.
  const quiet = new AbortController();
  let quietTimer: NodeJS.Timeout | undefined;
  const toldNow = () => {
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => quiet.abort(), STREAM_WAIT_MS);
  };
  const waiting = AbortSignal.any([stream.ended, quiet.signal]);
  const changes = deps.backend.waits.changes(view.run, waiting);
  try {
    for (;;) {
      const task = detailedTask(view, tool, deps.timing);
      const ended = task.status !== 'working' && task.status !== 'input_required';
      // A task that had ended before its tasks/result is answered without a word before.
      if (ended && told === undefined) return { view, tool };
      if (task.status !== told) {
        await stream.status(legacyTask(view, tool, deps.timing));
        told = task.status;
        toldNow();
      }
      if (ended) return { view, tool };
      if (task.status === 'input_required') {
        for (const [key, request] of Object.entries(task.inputRequests)) {
          if (asked.has(key)) continue;
          asked.add(key);
          const id = inputRequestId(task.taskId, key);
          asking(id);
          await stream.ask(id, request, task.taskId);
          toldNow();
        }
      }
      if (waiting.aborted) return { view, tool };
      try {
        await changes.next();
      } catch (err) {
        if (waiting.aborted) return { view, tool };
        throw err;
      }
      ({ view, tool } = await look());
    }
  } finally {
    clearTimeout(quietTimer);
  }
}
