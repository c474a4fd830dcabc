// The gateway compiled to one JavaScript file (esbuild, dependencies left as imports), to run with
// plain `node` next to the tsx run the container uses: the difference is the tsx loader's memory.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Inside the repository, so the bundle's imports resolve from its node_modules.
const OUTFILE = fileURLToPath(new URL('../node_modules/.cache/bench/gateway.mjs', import.meta.url));
const ESBUILD = fileURLToPath(new URL('../node_modules/.bin/esbuild', import.meta.url));

/** Node.js arguments that run the compiled gateway, or why it could not be compiled. */
export function bundleGateway(): { nodeArgs: string[] } | { reason: string } {
  if (!existsSync(ESBUILD)) return { reason: 'esbuild (installed with tsx) not found' };
  const built = spawnSync(
    ESBUILD,
    [
      'gateway/main.ts',
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--packages=external',
      `--outfile=${OUTFILE}`,
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  if (built.status !== 0)
    return { reason: `esbuild failed: ${(built.stderr || String(built.error)).trim()}` };
  return { nodeArgs: [OUTFILE] };
}
