// How Node.js runs the gateway in production (container, `npm run gateway`, `npm start`, bench).
// V8's memory saver mode keeps the heap small under load (1,000 running tasks: 158 MB peak instead
// of 427 MB without flags); a fixed 4 MB young generation, which that mode would shrink to 1 MB,
// spares the garbage collector a scavenge every other request: the same peak as
// --optimize-for-size, with 17% less CPU per tasks/get (bench/run.ts part "peer").
export const GATEWAY_NODE_FLAGS = [
  '--memory-saver-mode',
  '--min-semi-space-size=4',
  '--max-semi-space-size=4',
];

/** The compiled gateway (`npm run build:gateway`), relative to the repository root. */
export const GATEWAY_BUNDLE = 'dist/gateway.mjs';

/**
 * The built-in catalog (served when MCP_TOOLS_FILE is unset), relative to the repository root: a
 * catalog module the gateway loads by path, like any catalog, and names nowhere else.
 */
export const BUILT_IN_CATALOG = 'catalog/mining/catalog.ts';

/** The built-in catalog compiled for the compiled gateway: this file, beside the gateway bundle. */
export const BUILT_IN_CATALOG_COMPILED = 'built-in-catalog.mjs';
