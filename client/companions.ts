// Which tools carry a start tool's start/poll flow (result poll, cancel, respond), read from the
// server's tools/list rather than guessed, since a catalog may name them as it likes.
//
// The rule: a companion's `workflow_id` argument is described as "The workflow_id returned by
// <start tool>, …" (every companion the gateway serves says so). Among a start tool's companions,
// the one taking `key` and `action` responds, the read-only one (readOnlyHint) is the result poll,
// the destructive one (destructiveHint) cancels. A role found that way nowhere falls back to the
// gateway's naming rule, get_X_result / cancel_X / respond_to_X for `start_X` or `X`, when the
// server lists a tool of that name.
import type { ListedTool } from './tool-list.ts';

export interface Companions {
  result: string;
  cancel?: string;
  respond?: string;
}

/** The naming rule: for `start_report` (or `report`), get_report_result, cancel_report, respond_to_report. */
export function defaultCompanions(name: string): Required<Companions> {
  const base = name.startsWith('start_') ? name.slice('start_'.length) : name;
  return { result: `get_${base}_result`, cancel: `cancel_${base}`, respond: `respond_to_${base}` };
}

/** The start tool a companion's workflow_id description names, if it names one. */
function startToolNamedBy(tool: ListedTool): string | undefined {
  const description = tool.inputSchema?.properties?.workflow_id?.description;
  // The name ends at whitespace, or at punctuation right before whitespace ("start_mining, copied").
  return description ? /\breturned by (\S+?)[,.;:]?(?:\s|$)/.exec(description)?.[1] : undefined;
}

/** `start`'s companions as the server lists them; undefined when it lists no result poll for it. */
export function findCompanions(tools: ListedTool[], start: string): Companions | undefined {
  const own = tools.filter((tool) => startToolNamedBy(tool) === start);
  const takes = (tool: ListedTool, field: string) => tool.inputSchema?.properties?.[field] !== undefined;
  const respond = own.find((tool) => takes(tool, 'key') && takes(tool, 'action'));
  const others = own.filter((tool) => tool !== respond);
  const result = others.find((tool) => tool.annotations?.readOnlyHint === true);
  const cancel = others.find((tool) => tool.annotations?.destructiveHint === true);
  const named = defaultCompanions(start);
  const listed = (name: string) => (tools.some((tool) => tool.name === name) ? name : undefined);
  const found = {
    result: result?.name ?? listed(named.result),
    cancel: cancel?.name ?? listed(named.cancel),
    respond: respond?.name ?? listed(named.respond),
  };
  if (!found.result) return undefined;
  return {
    result: found.result,
    ...(found.cancel ? { cancel: found.cancel } : {}),
    ...(found.respond ? { respond: found.respond } : {}),
  };
}

/** Like findCompanions, but an error that says what was looked for when there are none. */
export function companionsOf(tools: ListedTool[], start: string): Companions {
  const companions = findCompanions(tools, start);
  if (companions) return companions;
  throw new Error(
    `the server lists no start/poll companions for ${start}: no tool whose workflow_id is "returned by ${start}", ` +
      `and no ${defaultCompanions(start).result}`,
  );
}

/** The tools that start runs followed by companions (not the companions themselves). */
export function startTools(tools: ListedTool[]): ListedTool[] {
  return tools.filter((tool) => !startToolNamedBy(tool) && findCompanions(tools, tool.name));
}
