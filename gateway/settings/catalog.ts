// The tools served: those of the catalog file MCP_TOOLS_FILE names, or else the built-in catalog.
// The one place the gateway names the built-in entry.
import { parseSettings, text } from '../../common/settings.ts';
import { miningEntry } from '../../workflows/mining/tool.ts';
import { type CatalogDefaults, type CatalogTool, catalogTool, loadCatalogFile } from '../mcp/catalog.ts';

/** MCP_TOOLS_FILE, or undefined (unset or blank) for the built-in catalog. */
export function toolsFileFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return parseSettings(text('MCP_TOOLS_FILE'), env.MCP_TOOLS_FILE);
}

/**
 * The tools of `toolsFile`, or the built-in catalog's when it is undefined: the mining entry, read
 * like any catalog entry. Async: a catalog entry may name a hooks module to load.
 */
export async function loadTools(
  toolsFile: string | undefined,
  defaults: CatalogDefaults,
  env: NodeJS.ProcessEnv,
): Promise<CatalogTool[]> {
  return toolsFile
    ? await loadCatalogFile(toolsFile, defaults, env)
    : [catalogTool(miningEntry(env), defaults)];
}
