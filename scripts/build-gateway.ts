// Compiles the gateway to one JavaScript file, dist/gateway.mjs (or the path given), for plain
// `node` without the TypeScript loader, which costs about 30 MB of memory and some startup time.
// Packages stay imports resolved from node_modules; only the project's own sources are bundled.
import { renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { GATEWAY_BUNDLE } from '../gateway/runtime-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Builds the bundle into `out` (written then renamed: a gateway never starts a half-written file).
 * esbuild rejects with its errors listed when the sources do not compile.
 */
export async function buildGateway(out = `${ROOT}${GATEWAY_BUNDLE}`): Promise<string> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['gateway/main.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: `${out}.tmp`,
    write: true,
    logLevel: 'warning',
  });
  renameSync(`${out}.tmp`, out);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await buildGateway(process.argv[2]);
  console.log(`gateway bundle: ${out}`);
}
