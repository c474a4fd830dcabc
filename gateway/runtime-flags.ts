// How Node.js runs the gateway in production (container, `npm run gateway`, `npm start`, bench).
// --optimize-for-size keeps V8's heap small under load: with 1,000 running tasks the compiled
// gateway peaked at 120 MB instead of 209 MB, at the same request latency (docs/benchmarks.md).
export const GATEWAY_NODE_FLAGS = ['--optimize-for-size'];

/** The compiled gateway (`npm run build:gateway`), relative to the repository root. */
export const GATEWAY_BUNDLE = 'dist/gateway.mjs';

/**
 * The built-in catalog (served when MCP_TOOLS_FILE is unset), relative to the repository root: a
 * catalog module the gateway loads by path, like any catalog, and names nowhere else.
 */
export const BUILT_IN_CATALOG = 'catalog/mining/catalog.ts';

/** The built-in catalog compiled for the compiled gateway: this file, beside the gateway bundle. */
export const BUILT_IN_CATALOG_COMPILED = 'built-in-catalog.mjs';
