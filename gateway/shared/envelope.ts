// The one reader of a JSON-RPC message's envelope: what a parsed /mcp body says about itself, for
// every place that routes, limits, logs or traces by it before the MCP layer parses it properly,
// and whether the client capabilities a request declares take tasks. Untrusted input: every field
// is checked for its type, and a body that is no message reads empty.
import { TASKS_EXTENSION } from './protocol.ts';

/** A JSON-RPC message as the gateway reads it ahead of the SDK. */
export interface Envelope {
  /** The request id, when it is a valid one (a string or a number). */
  id?: string | number;
  method?: string;
  params: Record<string, unknown>;
  /** tools/call: the tool's name. */
  tool?: string;
  /** tasks/*: the task named. */
  taskId?: string;
  /** tools/call: the `workflow_id` argument of a companion. */
  workflowId?: string;
  /** subscriptions/listen with the Tasks extension's filter: the task ids asked for. */
  listenTaskIds?: unknown[];
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const string = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The envelope of one message (a batch has several: see messagesOf). */
export function envelopeOf(message: unknown): Envelope {
  const body = record(message) ?? {};
  const method = string(body.method);
  const params = record(body.params) ?? {};
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : undefined;
  const taskIds = record(params.notifications)?.taskIds;
  return {
    ...(id === undefined ? {} : { id }),
    ...(method === undefined ? {} : { method }),
    params,
    ...(method === 'tools/call' && string(params.name) ? { tool: params.name as string } : {}),
    ...(method?.startsWith('tasks/') && string(params.taskId) ? { taskId: params.taskId as string } : {}),
    ...(method === 'tools/call' && string(record(params.arguments)?.workflow_id)
      ? { workflowId: record(params.arguments)?.workflow_id as string }
      : {}),
    ...(method === 'subscriptions/listen' && Array.isArray(taskIds) ? { listenTaskIds: taskIds } : {}),
  };
}

/** Every message of a body: one, or each of a batch. */
export function messagesOf(body: unknown): Envelope[] {
  return (Array.isArray(body) ? body : [body]).map(envelopeOf);
}

/** The id to echo in an error answer to a body: its request id, or null (a batch, or none). */
export function requestIdOf(body: unknown): string | number | null {
  return Array.isArray(body) ? null : (envelopeOf(body).id ?? null);
}

/** Whether a request may receive a task: its client capabilities declare the Tasks extension. */
export function declaresTasksExtension(capabilities: object | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const value = extensions?.[TASKS_EXTENSION];
  return typeof value === 'object' && value !== null;
}
