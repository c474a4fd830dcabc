// How Node.js runs the gateway in production (container, `npm run gateway`, `npm start`, bench).
// --optimize-for-size keeps V8's heap small under load: with 1,000 running tasks the compiled
// gateway peaked at 120 MB instead of 209 MB, at the same request latency (docs/benchmarks.md).
export const GATEWAY_NODE_FLAGS = ['--optimize-for-size'];

/** The compiled gateway (`npm run build:gateway`), relative to the repository root. */
export const GATEWAY_BUNDLE = 'dist/gateway.mjs';
