// The package's public API report (part of `npm run lint`): the names each entry exports, values and
// types alike, must be exactly those docs/embedding.md lists in the entry's section (the first
// backticked name of each table row): gateway/index.ts (`temporal-mcp-gateway`) under
// "## Public API", workflows/package.ts (`temporal-mcp-gateway/workflow`) under "## Workflow API".
// An export added by accident, or one the docs forgot, fails here naming it. Then the declarations
// `npm run build:package` emits (tsconfig.package.json, emitted in memory here): every package they
// name is one a host installs with the package (scripts/declaration-imports.ts).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { declarationProblems, entryDeclarations, type PackageManifest } from './declaration-imports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = 'docs/embedding.md';
const ENTRIES = [
  { entry: 'gateway/index.ts', section: 'Public API' },
  { entry: 'workflows/package.ts', section: 'Workflow API' },
];

/** Every name `entry` exports, as TypeScript sees it. */
function exportedNames(entry: string): string[] {
  const path = join(ROOT, entry);
  const program = ts.createProgram([path], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`cannot read the exports of ${entry}`);
  return checker.getExportsOfModule(module).map((symbol) => symbol.name);
}

/** The names the docs list: table rows of the section `heading`. */
function documentedNames(heading: string): string[] {
  const text = readFileSync(join(ROOT, DOC), 'utf8');
  const section = new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(text)?.[1];
  if (!section) throw new Error(`${DOC} has no "## ${heading}" section`);
  return [...section.matchAll(/^\| `([A-Za-z]\w*)`/gm)].map((match) => match[1] as string);
}

/** The package's declarations as tsconfig.package.json emits them: path under its outDir → text. */
function emittedDeclarations(): { files: Map<string, string>; outDir: string } {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.package.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config?.options.outDir) throw new Error('tsconfig.package.json names no outDir');
  const { outDir } = config.options;
  const files = new Map<string, string>();
  ts.createProgram(config.fileNames, { ...config.options, skipLibCheck: true }).emit(
    undefined,
    (name, text) => files.set(relative(outDir, name), text),
    undefined,
    true,
  );
  return { files, outDir: relative(ROOT, outDir) };
}

let failed = false;
for (const { entry, section } of ENTRIES) {
  const exported = new Set(exportedNames(entry));
  const documented = new Set(documentedNames(section));
  const undocumented = [...exported].filter((name) => !documented.has(name));
  const gone = [...documented].filter((name) => !exported.has(name));
  if (undocumented.length > 0)
    console.error(
      `${entry} exports what ${DOC} does not list under "${section}": ${undocumented.join(', ')}`,
    );
  if (gone.length > 0)
    console.error(`${DOC} lists under "${section}" what ${entry} does not export: ${gone.join(', ')}`);
  failed ||= undocumented.length > 0 || gone.length > 0;
  if (!failed) console.log(`Package API: ${entry}, ${exported.size} exports, each listed in ${DOC}`);
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageManifest;
const { files, outDir } = emittedDeclarations();
const problems = declarationProblems(files, entryDeclarations(manifest, outDir), manifest);
for (const problem of problems) console.error(`${outDir}/${problem}`);
if (problems.length === 0)
  console.log(`Package types: ${files.size} declarations, naming only what a host installs with the package`);
failed ||= problems.length > 0;
if (failed) process.exit(1);
