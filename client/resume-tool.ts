// Which tool started a task the CLI resumes in the start/poll flow, where its companions poll it.
// Task ids are `<id prefix>-<32 base64url characters>`, under the gateway's running-task cap followed
// by `.<35 more>` (the slot and run), or `<id prefix>~<35>`; a catalog tool's id prefix is its name,
// the built-in start_mining's is `mine`, so the prefix names the tool only sometimes.
import { startTools } from './companions.ts';
import type { ListedTool } from './tool-list.ts';

const TASK_ID = /^(.+)(?:-[A-Za-z0-9_-]{32}(?:\.[A-Za-z0-9_-]{35})?|~[A-Za-z0-9_-]{35})$/;

/** The id prefix of a well-formed task id, or undefined. */
export function taskIdPrefix(taskId: string): string | undefined {
  return TASK_ID.exec(taskId)?.[1];
}

/**
 * The start tool of `taskId`: the one named (--tool), else the server's only start tool, else the
 * start tool whose name is the id's prefix; otherwise an error asking for --tool.
 */
export function resumeTool(tools: ListedTool[], taskId: string, named?: string): string {
  const starts = startTools(tools).map((tool) => tool.name);
  const choices = starts.join(', ') || 'none';
  if (named) {
    if (!starts.includes(named))
      throw new Error(`--tool ${named}: not a start/poll tool of this server (its start tools: ${choices})`);
    return named;
  }
  if (starts.length === 0) throw new Error('the server lists no start/poll tools to follow a task with');
  if (starts.length === 1) return starts[0] as string;
  const prefix = taskIdPrefix(taskId);
  if (prefix && starts.includes(prefix)) return prefix;
  throw new Error(
    `cannot tell which tool started ${taskId}` +
      (prefix ? ` (its prefix "${prefix}" names none of them)` : '') +
      `: name it with --tool (one of ${choices})`,
  );
}
