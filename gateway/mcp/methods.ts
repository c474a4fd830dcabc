// Every MCP method the gateway serves, and every companion tool's role, declared once: the revisions
// it is served to, where its message names tasks, the capability it needs, whether it is a poll.
// Everything that asks "which method is this, what does it touch" reads this table: the rights
// check (rights.ts), the poll limit, the Mcp-Name header, the request's log line and span, and the
// handler's registration. A message is read here once, its task ids parsed once into the values the
// rest receives.
import type { Envelope } from '../shared/protocol.ts';
import { parseTaskId, type TaskRef } from '../temporal/task-ids.ts';
import { parseArtifactUri } from './artifacts.ts';
import type { Catalog, CatalogTool, CompanionRole } from './catalog.ts';
import { taskInputAnswer } from './legacy-task-input.ts';

/** A protocol revision: 2026-07-28 (`modern`) or 2025-11-25 (`legacy`). */
export type Era = 'modern' | 'legacy';

type Params = Record<string, unknown>;

export interface MethodDeclaration {
  /** The revisions whose clients are served the method. */
  eras: readonly Era[];
  /** The task ids a message names, wherever its params (or, for a response, the message) carry them. */
  taskIds?: (params: Params, message: unknown) => unknown[];
  /** The param naming the task that the Mcp-Name header carries (SEP-2243). */
  nameParam?: 'taskId';
  /** 2026-07-28 requests must declare the Tasks extension (-32021 otherwise). */
  tasksExtension?: boolean;
  /** Each message polls the task it names (MCP_POLL_MIN_INTERVAL_MS). */
  poll?: boolean;
}

const BOTH: readonly Era[] = ['modern', 'legacy'];
const taskIdParam = (params: Params) => [params.taskId];
const record = (value: unknown): Params | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Params) : undefined;

/** The methods served, by name. The SDK answers any other with -32601. */
export const METHODS: Readonly<Record<string, MethodDeclaration>> = {
  initialize: { eras: ['legacy'] },
  ping: { eras: BOTH },
  'server/discover': { eras: ['modern'] },
  'tools/list': { eras: BOTH },
  'tools/call': { eras: BOTH },
  'tasks/get': {
    eras: BOTH,
    taskIds: taskIdParam,
    nameParam: 'taskId',
    tasksExtension: true,
    poll: true,
  },
  'tasks/update': {
    eras: ['modern'],
    taskIds: taskIdParam,
    nameParam: 'taskId',
    tasksExtension: true,
  },
  'tasks/cancel': {
    eras: BOTH,
    taskIds: taskIdParam,
    nameParam: 'taskId',
    tasksExtension: true,
  },
  'tasks/result': { eras: ['legacy'], taskIds: taskIdParam },
  'tasks/list': { eras: ['legacy'] },
  'subscriptions/listen': {
    eras: ['modern'],
    taskIds: (params) => {
      const ids = record(params.notifications)?.taskIds;
      return Array.isArray(ids) ? ids : [];
    },
    tasksExtension: true,
  },
  'resources/read': {
    eras: BOTH,
    taskIds: (params) => [typeof params.uri === 'string' ? parseArtifactUri(params.uri)?.taskId : undefined],
  },
  'resources/list': { eras: BOTH },
  'resources/templates/list': { eras: BOTH },
};

/** A 2025-11-25 client's answer to a task's input request: a response, whose id names its task. */
const INPUT_ANSWER: MethodDeclaration = {
  eras: ['legacy'],
  taskIds: (_params, message) => [taskInputAnswer(message)?.taskId],
};

/** What each companion tool of a catalog tool does with the `workflow_id` it takes. */
export const COMPANIONS: Readonly<Record<CompanionRole, { namesTask: boolean; poll: boolean }>> = {
  result: { namesTask: true, poll: true },
  cancel: { namesTask: true, poll: false },
  respond: { namesTask: true, poll: false },
  list: { namesTask: false, poll: false },
};

/** One message as the gateway reads it, once, before anything acts on it. */
export interface MessageReading {
  /** The catalog tools it touches: the tool called (a companion's is the tool it serves), each named task's. */
  tools: CatalogTool[];
  /** The tool a tools/call names, as written (a quick tool, which no catalog holds, is known by it). */
  called?: string;
  /** The well-formed task ids it names, parsed. */
  tasks: TaskRef[];
  /** The task ids it polls. */
  polls: TaskRef[];
  /** The task it is about, as written (logs and spans): its first task id, even a malformed one. */
  taskId?: string;
}

const EMPTY: MessageReading = { tools: [], tasks: [], polls: [] };

/** The declaration a message is read by: its method's, or the input answer's; undefined for neither. */
function declarationOf(envelope: Envelope, body: unknown): MethodDeclaration | undefined {
  if (envelope.method === undefined) return taskInputAnswer(body) ? INPUT_ANSWER : undefined;
  return Object.hasOwn(METHODS, envelope.method) ? METHODS[envelope.method] : undefined;
}

/** What one message of a body is and touches (see MessageReading). */
export function readMessage(catalog: Catalog, envelope: Envelope, body: unknown): MessageReading {
  const declaration = declarationOf(envelope, body);
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
