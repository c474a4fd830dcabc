// A tool's arguments from the command line, typed by its inputSchema: `--some-name V` sets
// `some_name` (or `someName`); integers and numbers must read as numbers, a boolean is a flag
// without a value (or `--flag=false`), objects and arrays are JSON, strings are taken as they are.
// `--args '{…}'` sets any argument as JSON; flags win over it.
import type { ArgumentSchema, ListedTool } from './tool-list.ts';

type Kind = 'integer' | 'number' | 'boolean' | 'string' | 'object' | 'array' | 'any';

interface Argument {
  property: string;
  flag: string;
  kind: Kind;
  schema: ArgumentSchema;
}

/** The flag of a property: some_name and someName are both --some-name. */
export function flagName(property: string): string {
  return property
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replaceAll('_', '-')
    .toLowerCase();
}

function kindOf(schema: ArgumentSchema): Kind {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t && t !== 'null');
  const type = types.length === 1 ? types[0] : undefined;
  if (type && ['integer', 'number', 'boolean', 'string', 'object', 'array'].includes(type))
    return type as Kind;
  if (schema.enum?.every((value) => typeof value === 'string')) return 'string';
  return 'any';
}

function argumentsOf(tool: ListedTool): Argument[] {
  return Object.entries(tool.inputSchema?.properties ?? {}).map(([property, schema]) => ({
    property,
    flag: flagName(property),
    kind: kindOf(schema),
    schema,
  }));
}

function placeholder(arg: Argument): string {
  if (arg.kind === 'boolean') return `--${arg.flag}`;
  const value = { any: 'VALUE', object: 'JSON', array: 'JSON' }[arg.kind as string] ?? arg.kind;
  return `--${arg.flag} <${value}>`;
}

/** One line per argument, for --help. */
export function argumentHelp(tool: ListedTool): string {
  const args = argumentsOf(tool);
  const required = new Set(tool.inputSchema?.required ?? []);
  const heading = `${tool.name}${tool.title ? `: ${tool.title}` : ''}`;
  if (args.length === 0) return `${heading}\n  (no arguments)`;
  const width = Math.max(...args.map((arg) => placeholder(arg).length)) + 2;
  const lines = args.map((arg) => {
    const notes = [arg.schema.description, required.has(arg.property) ? '(required)' : undefined];
    return `  ${placeholder(arg).padEnd(width)}${notes.filter(Boolean).join(' ')}`.trimEnd();
  });
  return [heading, ...lines].join('\n');
}

function unknownFlag(tool: ListedTool, flag: string): Error {
  const args = argumentsOf(tool);
  const known =
    args.length === 0 ? 'it takes no arguments' : `its arguments: ${args.map(placeholder).join(', ')}`;
  return new Error(
    `unknown flag --${flag} for ${tool.name}; ${known} (or set any of them with --args '{"name": value}')`,
  );
}

function convert(arg: Argument, raw: string): unknown {
  const fail = (expected: string, why = ''): never => {
    throw new Error(`--${arg.flag}: expected ${expected}, got ${JSON.stringify(raw)}${why}`);
  };
  switch (arg.kind) {
    case 'integer':
    case 'number': {
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value))
        fail(arg.kind === 'integer' ? 'an integer' : 'a number');
      if (arg.kind === 'integer' && !Number.isInteger(value)) fail('an integer');
      return value;
    }
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      return fail('true or false');
    case 'object':
    case 'array': {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (err) {
        fail(`JSON (an ${arg.kind})`, `: ${(err as Error).message}`);
      }
      const isArray = Array.isArray(value);
      const fits = arg.kind === 'array' ? isArray : typeof value === 'object' && value !== null && !isArray;
      if (!fits) fail(`JSON (an ${arg.kind})`);
      return value;
    }
    case 'any':
      // No single type to go by: a JSON value when the text is one, else the text.
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}

/** The JSON object of --args. */
function argsObject(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new Error(`--args: expected a JSON object, got ${JSON.stringify(json)}: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`--args: expected a JSON object, got ${JSON.stringify(json)}`);
  return value as Record<string, unknown>;
}

/** The arguments of a call of `tool` from its flags (the tokens after the tool name) and --args. */
export function toolArguments(
  tool: ListedTool,
  tokens: string[],
  argsJson?: string,
): Record<string, unknown> {
  const args = argumentsOf(tool);
  const flagged: Record<string, unknown> = {};
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (!token.startsWith('--') || token === '--')
      throw new Error(
        `unexpected argument ${JSON.stringify(token)}: ${tool.name}'s arguments are flags (--name value)`,
      );
    const eq = token.indexOf('=');
    const flag = eq < 0 ? token.slice(2) : token.slice(2, eq);
    const inline = eq < 0 ? undefined : token.slice(eq + 1);
    // The property's own spelling first (--someName), then its flag (--some-name).
    const arg = args.find((a) => a.property === flag) ?? args.find((a) => a.flag === flag);
    if (!arg) throw unknownFlag(tool, flag);
    if (arg.kind === 'boolean' && inline === undefined) {
      flagged[arg.property] = true;
      continue;
    }
    const raw = inline ?? tokens[++i];
    if (raw === undefined) throw new Error(`--${arg.flag} needs a value (${placeholder(arg)})`);
    flagged[arg.property] = convert(arg, raw);
  }
  return { ...(argsJson === undefined ? {} : argsObject(argsJson)), ...flagged };
}
