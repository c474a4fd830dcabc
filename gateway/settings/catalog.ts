// The catalog served: the file MCP_TOOLS_FILE names, or else the built-in catalog (loaded by its
// path, like any catalog: mcp/catalog-file.ts).
import { parseSettings, text } from '../../common/settings.ts';

/** MCP_TOOLS_FILE, or undefined (unset or blank) for the built-in catalog. */
export function toolsFileFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return parseSettings(text('MCP_TOOLS_FILE'), env.MCP_TOOLS_FILE);
}
