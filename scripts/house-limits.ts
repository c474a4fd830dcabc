// `tsx scripts/house-limits.ts` (part of `npm run lint`): the house's measured limits, read off the
// syntax tree of each product source file. No file over 400 lines (the error table excepted), no
// function over 60 lines, no function with more than 4 parameters: past these, look again at what
// the file or function holds (never split or merge only to fit them). Every product folder is held to
// them: any violation fails the check (exit 1).
// Lines are physical lines: a node's first line (after its leading comments) to its last, inclusive.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const LIMITS = { fileLines: 400, functionLines: 60, parameters: 4 } as const;

/** The error table, one module of every JSON-RPC error, may be long: this basename, under gateway/. */
export const ERROR_TABLE_BASENAME = 'errors.ts';

/** The product folders, held to the limits: a violation in any of them fails the check. */
export const PRODUCT_FOLDERS = [
  'gateway',
  'worker',
  'workflows',
  'activities',
  'common',
  'launcher',
  'client',
  'catalog',
] as const;

const SOURCE_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);

export interface Violation {
  path: string;
  line: number;
  what: string;
  measured: number;
  limit: number;
}

export interface FunctionMeasure {
  name: string;
  line: number;
  lines: number;
  parameters: number;
}

export interface FileReport {
  /** Relative to the checked root, with forward slashes. */
  path: string;
  lines: number;
  functions: FunctionMeasure[];
  violations: Violation[];
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunctionNode(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** Physical lines of a text: its newlines, plus one for a last line without one. */
function physicalLines(text: string): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.length > 0 && !text.endsWith('\n') ? lines + 1 : lines;
}

function nameText(name: ts.Node | undefined, source: ts.SourceFile): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)) return name.text;
  return name.getText(source);
}

/** `Class.` for a class member, nothing for an object literal's method. */
function ownerPrefix(node: ts.Node, source: ts.SourceFile): string {
  const owner = node.parent;
  if (owner && (ts.isClassDeclaration(owner) || ts.isClassExpression(owner))) {
    return `${nameText(owner.name, source) ?? '<class>'}.`;
  }
  return '';
}

/** A readable name: the declaration's own, or what the function is assigned to. */
function functionName(node: FunctionNode, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return `${ownerPrefix(node, source)}constructor`;
  if (
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  ) {
    const prefix = ts.isGetAccessorDeclaration(node)
      ? 'get '
      : ts.isSetAccessorDeclaration(node)
        ? 'set '
        : '';
    return `${prefix}${ownerPrefix(node, source)}${nameText(node.name, source)}`;
  }
  const own = nameText(node.name, source);
  if (own) return own;
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return nameText(parent.name, source) ?? '<anonymous>';
  }
  if (ts.isCallExpression(parent)) return `<callback to ${parent.expression.getText(source)}>`;
  return ts.isArrowFunction(node) ? '<arrow function>' : '<function>';
}

/** Positional parameters; a TypeScript `this` parameter is a type annotation, not one of them. */
function parameterCount(node: FunctionNode): number {
  return node.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this')).length;
}

function measureFunctions(source: ts.SourceFile): FunctionMeasure[] {
  const measures: FunctionMeasure[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    // Overload signatures and abstract members have no body: only the implementation is measured.
    if (isFunctionNode(node) && node.body) {
      const line = lineOf(node.getStart(source));
      measures.push({
        name: functionName(node, source),
        line,
        lines: lineOf(node.getEnd()) - line + 1,
        parameters: parameterCount(node),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return measures;
}

function scriptKind(path: string): ts.ScriptKind {
  const ext = extname(path);
  return ext === '.js' || ext === '.mjs' || ext === '.cjs' ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

/** Whether a file is the error table, exempt from the file length limit (not from the function limits). */
export function isErrorTable(path: string): boolean {
  return path.startsWith('gateway/') && basename(path) === ERROR_TABLE_BASENAME;
}

/** Measures one source text, `path` relative to the root with forward slashes, against the limits. */
export function checkSource(path: string, text: string): FileReport {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  const lines = physicalLines(text);
  const functions = measureFunctions(source);
  const violations: Violation[] = [];
  if (lines > LIMITS.fileLines && !isErrorTable(path)) {
    violations.push({ path, line: 1, what: 'file length', measured: lines, limit: LIMITS.fileLines });
  }
  for (const fn of functions) {
    if (fn.lines > LIMITS.functionLines) {
      const what = `function ${fn.name} length`;
      violations.push({ path, line: fn.line, what, measured: fn.lines, limit: LIMITS.functionLines });
    }
    if (fn.parameters > LIMITS.parameters) {
      const what = `function ${fn.name} parameters`;
      violations.push({ path, line: fn.line, what, measured: fn.parameters, limit: LIMITS.parameters });
    }
  }
  return { path, lines, functions, violations };
}

/** Source files under `root/folder`, relative to root with forward slashes, sorted. */
function sourceFiles(root: string, folder: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return entries
    .map((entry) => `${folder}/${entry.split(sep).join('/')}`)
    .filter((path) => !path.split('/').includes('node_modules') && SOURCE_EXTENSIONS.has(extname(path)))
    .sort();
}

/** Checks every source file of the product folders of a tree. */
export function checkTree(root: string): FileReport[] {
  return PRODUCT_FOLDERS.flatMap((folder) => sourceFiles(root, folder)).map((path) =>
    checkSource(path, readFileSync(join(root, path), 'utf8')),
  );
}

export function formatViolation(v: Violation): string {
  return `${v.path}:${v.line}  ${v.what}  (${v.measured} / ${v.limit})`;
}

/** Files checked, and the largest file, function and parameter list among them. */
export function summarize(reports: FileReport[]): string[] {
  const functions = reports.flatMap((r) => r.functions.map((fn) => ({ ...fn, path: r.path })));
  const largestFile = reports.reduce<FileReport | undefined>(
    (a, r) => (!a || r.lines > a.lines ? r : a),
    undefined,
  );
  const largestFunction = functions.reduce<(typeof functions)[number] | undefined>(
    (a, fn) => (!a || fn.lines > a.lines ? fn : a),
    undefined,
  );
  const mostParameters = functions.reduce<(typeof functions)[number] | undefined>(
    (a, fn) => (!a || fn.parameters > a.parameters ? fn : a),
    undefined,
  );
  return [
    `files checked: ${reports.length}`,
    `largest file: ${largestFile ? `${largestFile.lines} lines, ${largestFile.path}` : '-'}`,
    `largest function: ${
      largestFunction
        ? `${largestFunction.lines} lines, ${largestFunction.name} (${largestFunction.path}:${largestFunction.line})`
        : '-'
    }`,
    `most parameters: ${
      mostParameters
        ? `${mostParameters.parameters}, ${mostParameters.name} (${mostParameters.path}:${mostParameters.line})`
        : '-'
    }`,
  ];
}

function printSection(title: string, reports: FileReport[]): number {
  const violations = reports.flatMap((r) => r.violations);
  console.log(`${title}: ${violations.length} violation${violations.length === 1 ? '' : 's'}`);
  for (const v of violations) console.log(`  ${formatViolation(v)}`);
  for (const line of summarize(reports)) console.log(`  ${line}`);
  return violations.length;
}

function main(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const reports = checkTree(root);
  const { fileLines, functionLines, parameters } = LIMITS;
  console.log(
    `House limits: files ≤ ${fileLines} lines (except gateway/**/${ERROR_TABLE_BASENAME}), ` +
      `functions ≤ ${functionLines} lines, ≤ ${parameters} parameters\n`,
  );
  const failing = printSection(PRODUCT_FOLDERS.join(', '), reports);
  if (failing > 0) {
    console.error(`\n${failing} violation${failing === 1 ? '' : 's'} of the house limits`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
