// The package's public surface (docs/embedding.md lists it; `npm run lint` holds the two equal): the
// Fastify plugin, its options, the settings it takes and how to read them from the environment, the
// host's quick tools, and catalog entries given in code. Everything else is internal.

export type { HostAuthenticate } from './http/host-auth.ts';
export type { Identity as CallerIdentity } from './http/oauth.ts';
export type { CatalogEntry } from './mcp/catalog.ts';
export type { QuickTool, QuickToolContext } from './mcp/host-tools.ts';
export { type TemporalMcpOptions, temporalMcp } from './plugin.ts';
export { type GatewaySettings, loadSettings as loadGatewaySettings } from './settings/index.ts';
