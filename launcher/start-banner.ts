// What `npm start` prints once everything is up: where things are, which catalog and tools the
// gateway serves, and a call to try.
import { resolve } from 'node:path';

/** The part of a catalog entry the banner shows. */
export interface BannerTool {
  name: string;
  inputSchema: { properties?: Record<string, { type?: unknown }>; required?: string[] };
  companions: { result: string; cancel: string; respond?: string };
}

/** Tool arguments `npm run call` takes as flags (client/cli.ts), with values that make a short run. */
const CALL_FLAGS: Record<string, string> = { difficulty: '22', blocks: '3', data: 'hello' };
/** The endpoint `npm run call` uses unless told otherwise (client/cli.ts). */
const CALL_DEFAULT_URL = 'http://127.0.0.1:3000/mcp';

/** "built-in", or the catalog file as the gateway (running in `cwd`) reads it. */
export function catalogLabel(toolsFile: string | undefined, cwd: string): string {
  return toolsFile ? resolve(cwd, toolsFile) : 'built-in';
}

/** One row per tool: its name, then the companion tools it comes with. */
export function toolRows(tools: BannerTool[]): string[] {
  const width = Math.max(0, ...tools.map((tool) => tool.name.length));
  return tools.map((tool) => {
    const { result, cancel, respond } = tool.companions;
    return `${tool.name.padEnd(width)}  (with ${[result, cancel, ...(respond ? [respond] : [])].join(', ')})`;
  });
}

/**
 * A `npm run call` line for the first tool whose required arguments the call CLI can pass as
 * flags; undefined when there is none.
 */
export function exampleCall(tools: BannerTool[], endpoint: string, withToken: boolean): string | undefined {
  for (const tool of tools) {
    const properties = tool.inputSchema.properties ?? {};
    const required = tool.inputSchema.required ?? [];
    if (!required.every((name) => name in CALL_FLAGS)) continue;
    const flags = Object.keys(CALL_FLAGS)
      .filter(
        (name) => name in properties && (required.includes(name) || properties[name]?.type !== 'string'),
      )
      .flatMap((name) => [`--${name}`, CALL_FLAGS[name] as string]);
    return [
      ...(withToken ? ['MCP_TOKEN=<your token>'] : []),
      'npm run call --',
      tool.name,
      ...flags,
      ...(endpoint === CALL_DEFAULT_URL ? [] : ['--url', endpoint]),
    ].join(' ');
  }
  return undefined;
}
