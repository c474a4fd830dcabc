// The Tasks extension's methods: tasks/get, tasks/update, tasks/cancel, served from Temporal for
// every catalog tool. Only requests that declare the extension may use them (-32021 otherwise); an
// id that is unknown, expired or another caller's is -32602.
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { Caller, TemporalBackend } from '../temporal/backend.ts';
import { observeTaskRequest } from './call-observer.ts';
import { declaresTasksExtension } from './capabilities.ts';
import type { Catalog } from './catalog.ts';
import { inputResponsesSchema, taskIdParams } from './companion-schemas.ts';
import { invalidParams, missingTasksCapability, taskNotFound, toProtocolError } from './json-rpc-errors.ts';
import { emptyAck, getTaskResult, type TaskTiming } from './task-mapping.ts';
import { describeIssues } from './tools.ts';

export interface TaskMethodsDeps {
  backend: TemporalBackend;
  catalog: Catalog;
  timing: TaskTiming;
}

// Params are checked inside the handler, after the capability check, so a client without the
// extension always learns that first.
const anyParams = z.looseObject({});

export function registerTaskMethods(server: Server, deps: TaskMethodsDeps, caller: Caller): void {
  const { backend, catalog, timing } = deps;

  const serve = (
    method: string,
    handle: (params: Record<string, unknown>, ctx: ServerContext) => Promise<object>,
  ) =>
    server.setRequestHandler(method, { params: anyParams }, (params, ctx) =>
      observeTaskRequest(method, params.taskId, async () => {
        if (!declaresTasksExtension(server.getClientCapabilities())) throw missingTasksCapability();
        try {
          return (await handle(params, ctx)) as never;
        } catch (err) {
          throw toProtocolError(err);
        }
      }),
    );

  const taskIdOf = (params: Record<string, unknown>): string => {
    const parsed = taskIdParams.safeParse(params);
    if (!parsed.success) throw invalidParams(`Invalid params: ${describeIssues(parsed.error)}`);
    return parsed.data.taskId;
  };

  serve('tasks/get', async (params) => {
    const taskId = taskIdOf(params);
    // The id names its tool, so the progress query goes out beside the describe.
    const progressQuery = catalog.toolOfTask(taskId)?.progressQuery;
    const view = await backend.view(taskId, caller, { progressQuery });
    if (!view) throw taskNotFound();
    return getTaskResult(view, catalog.toolOfRun(view.tool), timing);
  });

  serve('tasks/cancel', async (params) => {
    if (!(await backend.cancel(taskIdOf(params), caller))) throw taskNotFound();
    return emptyAck();
  });

  serve('tasks/update', async (params, ctx) => {
    const taskId = taskIdOf(params);
    // The SDK lifts inputResponses out of the params (it shares the multi-round-trip field name).
    const raw = ctx.mcpReq.inputResponses ?? params.inputResponses;
    const parsed = inputResponsesSchema.safeParse(raw);
    if (!parsed.success) throw invalidParams(`Invalid inputResponses: ${describeIssues(parsed.error)}`);
    const tool = catalog.toolOfTask(taskId);
    if (!tool) throw taskNotFound();
    if (!tool.inputSignal) throw invalidParams(`Tasks of ${tool.name} take no input`);
    if (!(await backend.sendInput(taskId, caller, tool.inputSignal, parsed.data))) throw taskNotFound();
    return emptyAck();
  });
}
