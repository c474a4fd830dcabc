// The built-in catalog, served when MCP_TOOLS_FILE is unset: start_mining (entry.ts). A catalog
// module like any other (gateway/mcp/catalog-file.ts): the gateway finds it by its path
// (BUILT_IN_CATALOG in gateway/runtime-flags.ts), never by an import; the compiled gateway loads it
// compiled beside its bundle (scripts/build-gateway.ts). The entry reads its approval policy from
// the environment the gateway passes (MCP_APPROVAL_THRESHOLD_HASHES, MCP_APPROVAL_TIMEOUT_MS).
import type { CatalogModuleTools } from '../../gateway/hooks.ts';
import { miningEntry } from './entry.ts';

export const tools: CatalogModuleTools = (env) => [miningEntry(env)];
