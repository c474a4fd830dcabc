// The package's public API report (part of `npm run lint`): the names gateway/index.ts exports,
// values and types alike, must be exactly those docs/embedding.md lists under "## Public API"
// (the first backticked name of each table row). An export added by accident, or one the docs
// forgot, fails here naming it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, 'gateway/index.ts');
const DOC = 'docs/embedding.md';

/** Every name the entry exports, as TypeScript sees it. */
function exportedNames(): string[] {
  const program = ts.createProgram([ENTRY], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`cannot read the exports of ${ENTRY}`);
  return checker.getExportsOfModule(module).map((symbol) => symbol.name);
}

/** The names the docs list: table rows of the "## Public API" section. */
function documentedNames(): string[] {
  const text = readFileSync(join(ROOT, DOC), 'utf8');
  const section = /^## Public API\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1];
  if (!section) throw new Error(`${DOC} has no "## Public API" section`);
  return [...section.matchAll(/^\| `([A-Za-z]\w*)`/gm)].map((match) => match[1] as string);
}

const exported = new Set(exportedNames());
const documented = new Set(documentedNames());
const undocumented = [...exported].filter((name) => !documented.has(name));
const gone = [...documented].filter((name) => !exported.has(name));
if (undocumented.length > 0 || gone.length > 0) {
  if (undocumented.length > 0)
    console.error(`gateway/index.ts exports what ${DOC} does not list: ${undocumented.join(', ')}`);
  if (gone.length > 0)
    console.error(`${DOC} lists what gateway/index.ts does not export: ${gone.join(', ')}`);
  process.exit(1);
}
console.log(`Package API: ${exported.size} exports, each listed in ${DOC}`);
