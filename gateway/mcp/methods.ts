// Every MCP method the gateway serves, and every companion tool's role, declared once: the revisions
// it is served to, its params, where its message names tasks, the header mirroring its name, the
// capability it needs, whether it is a poll, how its outcome is counted, and its handler, whose
// return is its result. Everything that asks "which method is this, what does it touch" reads this
// table: the rights check (rights.ts), the poll limit, the Mcp-Name header, the request's log line
// and span, and the registration on the SDK's Server (handler.ts), generated from it. A message is
// read here once, its task ids parsed once into the values the rest receives.
import * as z from 'zod/v4';
import type { Envelope } from '../shared/protocol.ts';
import { parseTaskId, type TaskRef } from '../temporal/task-ids.ts';
import { parseArtifactUri } from './artifacts.ts';
import type { Catalog, CatalogTool, CompanionRole } from './catalog.ts';
import { INPUT_ANSWER_LOG, taskInputAnswer } from './legacy-task-input.ts';
import { listTasks, type ResultParts, taskResult } from './legacy-tasks.ts';
import type { Era, McpDeps, MessageReading, MethodCall } from './method-context.ts';
import { listResources, readResource } from './resources.ts';
import { cancelTask, getTask, updateTask } from './tasks.ts';
import { type CallParts, callTool } from './tools-call.ts';

export type { Era } from './method-context.ts';

type Params = Record<string, unknown>;

/** The gateway's parts, given once when the MCP layer is made; each handler takes what it uses. */
export type MethodParts = McpDeps &
  CallParts &
  Pick<ResultParts, 'subscriptions' | 'stopping'> & { listed: () => object };

/** The header mirroring one param (SEP-2243): required by the core spec, or supplied when absent (tasks). */
interface McpName {
  param: 'name' | 'uri' | 'taskId';
  /** A request without the header is refused (-32020); else the gateway supplies it from the param. */
  required: boolean;
}

interface Declared {
  /** The revisions whose clients are served the method. */
  eras: readonly Era[];
  /** The task ids a message names, wherever its params (or, for a response, the message) carry them. */
  taskIds?: (params: Params, message: unknown) => unknown[];
  /** The param the Mcp-Name header mirrors. */
  mcpName?: McpName;
  /** 2026-07-28 requests must declare the Tasks extension (-32021 otherwise). */
  tasksExtension?: boolean;
  /** Each message polls the task it names (MCP_POLL_MIN_INTERVAL_MS). */
  poll?: boolean;
  /** How its outcome is counted and logged (observe.ts): as a tool call, or as a request of its method; absent: neither. */
  outcome?: 'tool_call' | 'request';
}

/** A method the gateway's own handler serves on the SDK's Server (handler.ts registers it). */
interface Handled<P> extends Declared {
  /** Its params; `spec`: the SDK checks a core method's params with its own wire schema first. */
  params: z.ZodType<P>;
  wire?: 'spec';
  /** Its handler, made once from the parts it uses; its return is the result the client is sent. */
  handler: (parts: MethodParts) => (call: MethodCall<P>) => Promise<object> | object;
}

/** A method served without a handler of the table's: by the SDK itself, or past it (a task stream). */
interface ServedElsewhere extends Declared {
  servedBy: 'sdk' | 'task-stream';
}

export type MethodDeclaration = (Handled<Params> & { servedBy?: never }) | ServedElsewhere;

/** A handled method's declaration, checked against its own params type. */
function handled<P extends Params>(declaration: Handled<P>): MethodDeclaration {
  return declaration as unknown as MethodDeclaration;
}

const BOTH: readonly Era[] = ['modern', 'legacy'];
const taskIdParam = (params: Params) => [params.taskId];
const record = (value: unknown): Params | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Params) : undefined;
const taskParams = z.looseObject({ taskId: z.string() });
const cursorParams = z.looseObject({ cursor: z.string().optional() });
const NAMES_TASK: McpName = { param: 'taskId', required: false };

/** The methods served, by name. The SDK answers any other with -32601. */
export const METHODS: Readonly<Record<string, MethodDeclaration>> = {
  initialize: { eras: ['legacy'], servedBy: 'sdk' },
  // The 2026-07-28 revision has no ping (its SDK answers -32601).
  ping: { eras: ['legacy'], servedBy: 'sdk' },
  'server/discover': { eras: ['modern'], servedBy: 'sdk' },
  'tools/list': handled({
    eras: BOTH,
    params: cursorParams,
    wire: 'spec',
    handler: ({ listed }) => listed,
  }),
  'tools/call': handled({
    eras: BOTH,
    params: z.looseObject({
      name: z.string(),
      arguments: z.record(z.string(), z.unknown()).optional(),
      task: z.unknown().optional(),
    }),
    wire: 'spec',
    mcpName: { param: 'name', required: true },
    outcome: 'tool_call',
    handler: callTool,
  }),
  'tasks/get': handled({
    eras: BOTH,
    params: taskParams,
    taskIds: taskIdParam,
    mcpName: NAMES_TASK,
    tasksExtension: true,
    poll: true,
    outcome: 'request',
    handler: getTask,
  }),
  'tasks/update': handled({
    eras: ['modern'],
    params: taskParams,
    taskIds: taskIdParam,
    mcpName: NAMES_TASK,
    tasksExtension: true,
    outcome: 'request',
    handler: updateTask,
  }),
  'tasks/cancel': handled({
    eras: BOTH,
    params: taskParams,
    taskIds: taskIdParam,
    mcpName: NAMES_TASK,
    tasksExtension: true,
    outcome: 'request',
    handler: cancelTask,
  }),
  'tasks/result': handled({
    eras: ['legacy'],
    params: taskParams,
    taskIds: taskIdParam,
    outcome: 'request',
    handler: taskResult,
  }),
  'tasks/list': handled({ eras: ['legacy'], params: cursorParams, outcome: 'request', handler: listTasks }),
  'subscriptions/listen': {
    eras: ['modern'],
    servedBy: 'task-stream',
    outcome: 'request',
    taskIds: (params) => {
      const ids = record(params.notifications)?.taskIds;
      return Array.isArray(ids) ? ids : [];
    },
    tasksExtension: true,
  },
  'resources/read': handled({
    eras: BOTH,
    params: z.looseObject({ uri: z.string() }),
    wire: 'spec',
    taskIds: (params) => [typeof params.uri === 'string' ? parseArtifactUri(params.uri)?.taskId : undefined],
    mcpName: { param: 'uri', required: true },
    outcome: 'request',
    handler: readResource,
  }),
  'resources/list': handled({
    eras: BOTH,
    params: cursorParams,
    wire: 'spec',
    outcome: 'request',
    handler: listResources,
  }),
  'resources/templates/list': handled({
    eras: BOTH,
    params: cursorParams,
    wire: 'spec',
    handler: () => () => ({ resourceTemplates: [] }),
  }),
};

/** A method's declaration by name; undefined for one the gateway does not serve. */
export function declarationOf(method: string): MethodDeclaration | undefined {
  return Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
}

/** A 2025-11-25 client's answer to a task's input request: a response, whose id names its task. */
export const INPUT_ANSWER: Declared & { logsAs: string } = {
  eras: ['legacy'],
  logsAs: INPUT_ANSWER_LOG,
  outcome: 'request',
  taskIds: (_params, message) => [taskInputAnswer(message)?.taskId],
};

/** What each companion tool of a catalog tool does with the `workflow_id` it takes. */
export const COMPANIONS: Readonly<Record<CompanionRole, { namesTask: boolean; poll: boolean }>> = {
  result: { namesTask: true, poll: true },
  cancel: { namesTask: true, poll: false },
  respond: { namesTask: true, poll: false },
  list: { namesTask: false, poll: false },
};

const EMPTY: MessageReading = { tools: [], tasks: [], polls: [] };

/** The declaration a message is read by: its method's, or the input answer's; undefined for neither. */
function readBy(envelope: Envelope, body: unknown): Declared | undefined {
  if (envelope.method === undefined) return taskInputAnswer(body) ? INPUT_ANSWER : undefined;
  return declarationOf(envelope.method);
}

/** What one message of a body is and touches (see MessageReading). */
export function readMessage(catalog: Catalog, envelope: Envelope, body: unknown): MessageReading {
  const declaration = readBy(envelope, body);
  if (!declaration) return EMPTY;
  const companion = envelope.tool === undefined ? undefined : catalog.companionOf(envelope.tool);
  const named = declaration.taskIds?.(envelope.params, body) ?? [];
  if (companion && COMPANIONS[companion.role].namesTask)
    named.push(record(envelope.params.arguments)?.workflow_id);
  const ids = named.filter((id): id is string => typeof id === 'string');
  const tasks = ids.map(parseTaskId).filter((ref): ref is TaskRef => ref !== undefined);
  const tools = new Set<CatalogTool | undefined>();
  if (envelope.tool !== undefined) tools.add(companion?.tool ?? catalog.tool(envelope.tool));
  for (const ref of tasks) tools.add(catalog.toolOfTask(ref));
  const polls = declaration.poll || (companion && COMPANIONS[companion.role].poll) ? tasks : [];
  return {
    tools: [...tools].filter((tool): tool is CatalogTool => tool !== undefined),
    tasks,
    polls,
    ...(envelope.tool === undefined ? {} : { called: envelope.tool }),
    ...(ids[0] === undefined ? {} : { taskId: ids[0] }),
  };
}
