// What a token may do with a catalog tool: the tool's OAuth `scopes` (beside the gateway's required
// ones) are needed for everything on the tool and its runs, in both eras: the call and its
// companions, tasks/* of each revision, an input answer, a push watch, an artifact read; a listing
// leaves out the runs of tools the token does not cover. The one rule: which tools a message
// touches, and which of a tool's scopes a token lacks. No Temporal call: a task id's prefix names
// its tool, and the owner tag covers the prefix.
import type { Envelope } from '../shared/protocol.ts';
import { parseArtifactUri } from './artifacts.ts';
import type { Catalog, CatalogTool } from './catalog.ts';
import { taskInputAnswer } from './legacy-task-input.ts';

/** The scopes of `tool` a token holding `held` lacks; none when `held` is undefined (every scope). */
function lackedScopes(tool: CatalogTool | undefined, held: readonly string[] | undefined): string[] {
  if (!tool?.scopes || held === undefined) return [];
  return tool.scopes.filter((scope) => !held.includes(scope));
}

/** Whether a token holding `held` covers the tool of task `taskId` (a listing keeps only those). */
export function coversTask(catalog: Catalog, taskId: string, held: readonly string[] | undefined): boolean {
  return lackedScopes(catalog.toolOfTask(taskId), held).length === 0;
}

/**
 * The catalog tools one message touches: a call's tool (a companion's is the tool it serves), the
 * tool of each task it names (tasks/* of both revisions, subscriptions/listen, an artifact URI,
 * the answer to an input request, whose id names its task).
 */
export function toolsTouched(catalog: Catalog, envelope: Envelope, message: unknown): CatalogTool[] {
  const tools = new Set<CatalogTool | undefined>();
  if (envelope.tool !== undefined) tools.add(catalog.toolOfCall(envelope.tool));
  const taskIds: unknown[] = [envelope.taskId, ...(envelope.listenTaskIds ?? [])];
  if (envelope.method === 'resources/read' && typeof envelope.params.uri === 'string')
    taskIds.push(parseArtifactUri(envelope.params.uri)?.taskId);
  if (envelope.method === undefined) taskIds.push(taskInputAnswer(message)?.taskId);
  for (const taskId of taskIds) if (typeof taskId === 'string') tools.add(catalog.toolOfTask(taskId));
  return [...tools].filter((tool): tool is CatalogTool => tool !== undefined);
}
