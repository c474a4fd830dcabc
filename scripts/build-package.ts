// Builds the package `npm pack` makes (`npm run build:package`, run by prepack): its entry,
// gateway/index.ts, compiled to one ES module, dist/package/index.js (packages stay imports), the
// built-in catalog compiled beside it (where the compiled gateway looks for it), the workflow side
// (`temporal-mcp-gateway/workflow`, workflows/package.ts) as dist/package/workflow.js, and the type
// declarations of both under dist/package/types (tsconfig.package.json).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_IN_CATALOG, BUILT_IN_CATALOG_COMPILED } from '../gateway/runtime-flags.ts';
import { compile } from './build-gateway.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE_DIR = join(ROOT, 'dist/package');
const TYPES_DIR = join(PACKAGE_DIR, 'types');
/** A relative import specifier ending in `.ts`, quoted. */
const RELATIVE_TS = /(['"])(\.{1,2}\/[^'"\n]+)\.ts\1/g;

async function buildPackage(): Promise<void> {
  rmSync(PACKAGE_DIR, { recursive: true, force: true });
  await Promise.all([
    compile('gateway/index.ts', join(PACKAGE_DIR, 'index.js')),
    compile(BUILT_IN_CATALOG, join(PACKAGE_DIR, BUILT_IN_CATALOG_COMPILED)),
    compile('workflows/package.ts', join(PACKAGE_DIR, 'workflow.js')),
  ]);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.package.json'], { cwd: ROOT, stdio: 'inherit' });
  // tsc keeps the sources' `.ts` specifiers in declarations: a host without allowImportingTsExtensions
  // reads them as the `.js` its compiler expects beside a `.d.ts`.
  for (const file of readdirSync(TYPES_DIR, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.d.ts')) continue;
    const path = join(TYPES_DIR, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(RELATIVE_TS, '$1$2.js$1'));
  }
}

await buildPackage();
console.log(`package: ${PACKAGE_DIR}`);
