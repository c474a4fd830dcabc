// Compiles the gateway to one JavaScript file, dist/gateway.mjs (or the path given), for plain
// `node` without the TypeScript loader, which costs about 30 MB of memory and some startup time.
// Packages stay imports resolved from node_modules; only the project's own sources are bundled.
// The built-in catalog, a module the gateway loads by path (it imports no catalog), is compiled
// beside the bundle (BUILT_IN_CATALOG_COMPILED), where the compiled gateway looks for it.
import { renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUILT_IN_CATALOG, BUILT_IN_CATALOG_COMPILED, GATEWAY_BUNDLE } from '../gateway/runtime-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One module of the project's sources compiled to `outfile` (packages stay imports). */
export function compile(entry: string, outfile: string) {
  return build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    write: true,
    logLevel: 'warning',
  });
}

/**
 * Builds the bundle into `out` and the built-in catalog beside it (each written then renamed, the
 * catalog first: a gateway never starts a half-written file, nor a bundle without its catalog).
 * esbuild rejects with its errors listed when the sources do not compile.
 */
export async function buildGateway(out = `${ROOT}${GATEWAY_BUNDLE}`): Promise<string> {
  const catalog = join(dirname(out), BUILT_IN_CATALOG_COMPILED);
  await Promise.all([compile('gateway/main.ts', `${out}.tmp`), compile(BUILT_IN_CATALOG, `${catalog}.tmp`)]);
  renameSync(`${catalog}.tmp`, catalog);
  renameSync(`${out}.tmp`, out);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await buildGateway(process.argv[2]);
  console.log(`gateway bundle: ${out} (the built-in catalog beside it: ${BUILT_IN_CATALOG_COMPILED})`);
}
