// What the package's type declarations ask of a host: the packages its .d.ts files name (imports,
// re-exports, `import("…")` types, type references), walked from the entries' declarations the way
// a host's compiler reads them. A declaration a host reaches may name only a dependency or a required
// peer (the packages npm installs with the package), or Node's own modules (@types/node, which the
// required peer fastify's types need as well); an optional peer there breaks every host without it.
import { isBuiltin } from 'node:module';
import { posix } from 'node:path';
import ts from 'typescript';

export interface PackageManifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  exports?: Record<string, { types?: string }>;
}

/** Every module specifier a declaration file names, as written. */
function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found = source.typeReferenceDirectives.map((directive) => directive.fileName);
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      found.push(node.argument.literal.text);
    else if (ts.isExternalModuleReference(node) && ts.isStringLiteral(node.expression))
      found.push(node.expression.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The package a bare specifier names (`@scope/name` or `name`, without its subpath). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** The declaration file a relative specifier of `from` names, among `files` (paths relative to the types root). */
function resolveRelative(
  from: string,
  specifier: string,
  files: ReadonlyMap<string, string>,
): string | undefined {
  const base = posix.join(posix.dirname(from), specifier).replace(/\.(js|ts|d\.ts)$/, '');
  return [`${base}.d.ts`, `${base}/index.d.ts`].find((candidate) => files.has(candidate));
}

/** The entries' declaration files, relative to `typesRoot` (package.json `exports`, each entry's `types`). */
export function entryDeclarations(manifest: PackageManifest, typesRoot: string): string[] {
  return Object.values(manifest.exports ?? {}).flatMap(({ types }) =>
    types ? [posix.relative(typesRoot, posix.normalize(types))] : [],
  );
}

/** The declaration files a host's compiler reads from `entries`, and the relative imports that name none. */
function reachedFrom(entries: readonly string[], files: ReadonlyMap<string, string>) {
  const reached = new Set<string>();
  const broken: string[] = [];
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const text = files.get(file);
    if (text === undefined) broken.push(`${file}: an entry's declarations, not emitted`);
    if (text === undefined || reached.has(file)) continue;
    reached.add(file);
    for (const specifier of specifiersOf(file, text).filter((name) => name.startsWith('.'))) {
      const target = resolveRelative(file, specifier, files);
      if (target) queue.push(target);
      else broken.push(`${file}: imports ${specifier}, which is not among the declarations`);
    }
  }
  return { reached, broken };
}

/** The bare specifiers (packages, with their subpaths) the declarations `entries` reach name, Node's aside. */
export function namedSpecifiers(files: ReadonlyMap<string, string>, entries: readonly string[]): string[] {
  const named = [...reachedFrom(entries, files).reached].flatMap((file) =>
    specifiersOf(file, files.get(file) as string).filter(isPackageSpecifier),
  );
  return [...new Set(named)].sort();
}

function isPackageSpecifier(specifier: string): boolean {
  return !specifier.startsWith('.') && !isBuiltin(specifier) && specifier !== 'node';
}

/**
 * What is wrong with the declarations `files` (path relative to the types root → text) for a host
 * that installs what `manifest` declares, one line each naming the file and the package: any
 * declaration naming an undeclared package, one the entries reach naming an optional peer, a
 * relative import naming no declaration. Empty when a host has everything its compiler will read.
 */
export function declarationProblems(
  files: ReadonlyMap<string, string>,
  entries: readonly string[],
  manifest: PackageManifest,
): string[] {
  const peers = Object.keys(manifest.peerDependencies ?? {});
  const optional = new Set(peers.filter((name) => manifest.peerDependenciesMeta?.[name]?.optional));
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...peers]);
  const { reached, broken } = reachedFrom(entries, files);
  const problems = [...broken];
  for (const [file, text] of files) {
    const named = new Set(specifiersOf(file, text).filter(isPackageSpecifier).map(packageOf));
    for (const name of named) {
      if (!declared.has(name))
        problems.push(
          `${file}: names ${name}, which package.json names neither as a dependency nor as a peer`,
        );
      else if (optional.has(name) && reached.has(file))
        problems.push(`${file}: names ${name}, an optional peer a host may not have installed`);
    }
  }
  return problems;
}
