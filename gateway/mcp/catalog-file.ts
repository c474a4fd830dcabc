// Reading a catalog: the file MCP_TOOLS_FILE names, or the built-in catalog when it is unset. A
// catalog is a YAML file, a JSON file (ending in `.json`), or a module (ending in `.ts`, `.mts`,
// `.js` or `.mjs`) exporting `tools`: its entries, or a function of the environment returning
// them. The built-in catalog is such a module, found by path (BUILT_IN_CATALOG): the gateway's code
// does not import it. Every catalog is checked the same way; a bad one throws naming the catalog,
// the entry and the field.
//
// An entry may name `hooks`: a module (path relative to the catalog) exporting `hooks`, an object
// or a function of the environment, that overrides parts of how the tool's runs read. An entry
// written in code may give the hooks object itself.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { BUILT_IN_CATALOG, BUILT_IN_CATALOG_COMPILED } from '../runtime-flags.ts';
import {
  assertUniqueNames,
  type CatalogDefaults,
  type CatalogEntry,
  CatalogError,
  type CatalogTool,
  catalogTool,
  MAX_MAX_DURATION_MS,
  MIN_MAX_DURATION_MS,
  SCOPE_TOKEN,
  type ToolHooks,
} from './catalog.ts';
import { compileSchema, describeSchemaError, type JsonSchema } from './schemas.ts';

const TOOL_NAME = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$';
const nonEmpty = { type: 'string', minLength: 1, maxLength: 1000 };

/** The shape of a catalog file. */
const CATALOG_FILE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['tools'],
  additionalProperties: false,
  properties: {
    tools: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'description', 'workflow', 'inputSchema'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', pattern: TOOL_NAME },
          title: nonEmpty,
          description: { type: 'string', minLength: 1, maxLength: 10_000 },
          workflow: nonEmpty,
          taskQueue: nonEmpty,
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          annotations: { type: 'object' },
          waitBudgetMs: { type: 'integer', minimum: 0, maximum: 600_000 },
          maxDurationMs: { type: 'integer', minimum: MIN_MAX_DURATION_MS, maximum: MAX_MAX_DURATION_MS },
          priority: { type: 'integer', minimum: 1, maximum: 5 },
          idempotencyKeyArgument: nonEmpty,
          progressQuery: nonEmpty,
          progressForm: { enum: ['published', 'query'] },
          inputSignal: nonEmpty,
          idPrefix: { type: 'string', pattern: '^[A-Za-z0-9_][A-Za-z0-9_.]{0,63}$' },
          hooks: nonEmpty,
          taskSupport: { enum: ['optional', 'required', 'forbidden'] },
          resultShape: { enum: ['json', 'toolResult'] },
          requiredClientCapabilities: {
            type: 'array',
            minItems: 1,
            uniqueItems: true,
            items: { enum: ['elicitation', 'sampling', 'roots'] },
          },
          scopes: {
            type: 'array',
            minItems: 1,
            uniqueItems: true,
            items: { type: 'string', pattern: SCOPE_TOKEN.source },
          },
          companions: {
            type: 'object',
            additionalProperties: false,
            properties: {
              result: { type: 'string', pattern: TOOL_NAME },
              cancel: { type: 'string', pattern: TOOL_NAME },
              respond: { type: 'string', pattern: TOOL_NAME },
              list: { type: 'string', pattern: TOOL_NAME },
            },
          },
        },
      },
    },
  },
};

let validateCatalogFile: ValidateFunction | undefined;

/** What a catalog module exports as `tools`: its entries, or a function of the environment returning them. */
export type CatalogModuleTools =
  | CatalogEntry[]
  | ((env: NodeJS.ProcessEnv) => CatalogEntry[] | Promise<CatalogEntry[]>);

/** A catalog module: `.ts` and `.mts` need the TypeScript loader (tsx); the compiled gateway loads JavaScript. */
const CATALOG_MODULE = /\.(ts|mts|js|mjs)$/i;

/**
 * The built-in catalog's path. From the sources (this file is gateway/mcp/catalog-file.ts) it is
 * BUILT_IN_CATALOG in the repository; the compiled gateway (one bundle, scripts/build-gateway.ts)
 * finds it compiled beside its bundle, as BUILT_IN_CATALOG_COMPILED.
 */
export function builtInCatalogPath(moduleUrl: string = import.meta.url): string {
  const fromSources = new URL(moduleUrl).pathname.endsWith('.ts');
  return fileURLToPath(
    new URL(fromSources ? `../../${BUILT_IN_CATALOG}` : `./${BUILT_IN_CATALOG_COMPILED}`, moduleUrl),
  );
}

/**
 * The tools a gateway serves: those of the catalog `file` (MCP_TOOLS_FILE: YAML, JSON or a module),
 * or of the built-in catalog when it is undefined. Throws an Error naming the catalog, the entry
 * and the field.
 */
export async function loadCatalog(
  file: string | undefined,
  defaults: CatalogDefaults,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CatalogTool[]> {
  if (file === undefined) {
    const path = builtInCatalogPath();
    return loadCatalogModule(path, defaults, env, `the built-in catalog (${path})`);
  }
  return CATALOG_MODULE.test(file)
    ? loadCatalogModule(file, defaults, env)
    : loadCatalogFile(file, defaults, env);
}

/** Reads and checks a catalog file (YAML or JSON). Throws an Error naming the file, the entry and the field. */
export async function loadCatalogFile(
  path: string,
  defaults: CatalogDefaults,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CatalogTool[]> {
  const source = `MCP_TOOLS_FILE (${path})`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${source}: cannot read it: ${(err as Error).message}`);
  }
  let document: unknown;
  try {
    // The YAML parser loads only for a YAML catalog: the built-in catalog never pays for it.
    const yaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml');
    document = /\.json$/i.test(path) ? JSON.parse(text) : yaml().parse(text);
  } catch (err) {
    throw new Error(
      `${source}: not valid ${/\.json$/i.test(path) ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
  return catalogTools({ source, path, document: document, given: [] }, defaults, env);
}

/**
 * Loads and checks a catalog module: its `tools` export, entries or a function of the environment
 * returning them. Throws an Error naming the module, the entry and the field; an error the module
 * throws itself (a bad setting it reads, say) is passed on as it is.
 */
export async function loadCatalogModule(
  path: string,
  defaults: CatalogDefaults,
  env: NodeJS.ProcessEnv = process.env,
  source = `MCP_TOOLS_FILE (${path})`,
): Promise<CatalogTool[]> {
  let loaded: { tools?: unknown };
  try {
    loaded = await import(pathToFileURL(resolve(path)).href);
  } catch (err) {
    throw new Error(`${source}: cannot load it: ${(err as Error).message}`);
  }
  const exported = loaded.tools;
  if (exported === undefined) throw new Error(`${source}: exports no \`tools\` array or function`);
  const entries: unknown = typeof exported === 'function' ? await exported(env) : exported;
  return catalogOfEntries(entries, { source, path }, defaults, env);
}

/**
 * Checks catalog entries given in code (a catalog module's, or an embedding application's), the
 * way a catalog file's are; `path` is where hooks paths are relative to.
 */
export function catalogOfEntries(
  entries: unknown,
  { source, path }: { source: string; path: string },
  defaults: CatalogDefaults,
  env: NodeJS.ProcessEnv,
): Promise<CatalogTool[]> {
  // Hooks given as objects are code, not data: checked as objects, the rest of the entry as a file's.
  const hooks: Array<ToolHooks | undefined> = [];
  let data: unknown = entries;
  if (Array.isArray(entries)) {
    data = entries.map((entry: unknown, index) => {
      const given = (entry as { hooks?: unknown } | null)?.hooks;
      if (!given || typeof given !== 'object') return entry;
      hooks[index] = given as ToolHooks;
      const { hooks: _code, ...rest } = entry as CatalogEntry;
      return rest;
    });
  }
  return catalogTools({ source, path, document: { tools: data }, given: hooks }, defaults, env);
}

/** A catalog as read: where from (for messages, and for hooks paths), its document, hooks given in code. */
interface CatalogRead {
  source: string;
  path: string;
  document: unknown;
  given: Array<ToolHooks | undefined>;
}

/**
 * A catalog's entries, checked against the file schema, their hooks loaded (a module path,
 * relative to the catalog) or given (`given[index]`), each completed with the defaults.
 */
async function catalogTools(
  read: CatalogRead,
  defaults: CatalogDefaults,
  env: NodeJS.ProcessEnv,
): Promise<CatalogTool[]> {
  const { source, path, document, given } = read;
  validateCatalogFile ??= compileSchema(CATALOG_FILE_SCHEMA);
  let raw: { tools?: CatalogEntry[] };
  try {
    raw = structuredClone(document) as { tools?: CatalogEntry[] };
  } catch (err) {
    // Only a module's entries can hold what is not data (a function, say).
    throw new Error(`${source}: its entries are not plain data: ${(err as Error).message}`);
  }
  const entryName = (index: number) => {
    const name = raw.tools?.[index]?.name;
    return `tools[${index}]${typeof name === 'string' ? ` (${name})` : ''}`;
  };
  if (!validateCatalogFile(raw)) {
    const error = validateCatalogFile.errors?.[0];
    const match = error ? /^\/tools\/(\d+)(\/.*)?$/.exec(error.instancePath) : null;
    if (error && match) {
      const index = Number(match[1]);
      const inner = { ...error, instancePath: match[2] ?? '' };
      throw new Error(`${source}: ${entryName(index)}: ${describeSchemaError(inner)}`);
    }
    throw new Error(`${source}: ${error ? describeSchemaError(error) : 'not a catalog'}`);
  }
  const entries = raw.tools ?? [];
  const tools: CatalogTool[] = [];
  for (const [index, entry] of entries.entries()) {
    try {
      const hooks = typeof entry.hooks === 'string' ? await loadHooks(entry.hooks, path, env) : given[index];
      tools.push(catalogTool({ ...entry, hooks }, defaults));
    } catch (err) {
      if (err instanceof CatalogError) throw new Error(`${source}: ${entryName(index)}: ${err.message}`);
      throw err;
    }
  }
  assertUniqueNames(tools, (index) => `${source}: ${entryName(index)}`);
  return tools;
}

/** A hooks module named by a catalog: its `hooks` export, an object or a function of the environment. */
async function loadHooks(module: string, catalogPath: string, env: NodeJS.ProcessEnv): Promise<ToolHooks> {
  const path = resolve(dirname(catalogPath), module);
  let loaded: { hooks?: unknown };
  try {
    loaded = await import(pathToFileURL(path).href);
  } catch (err) {
    throw new CatalogError(`hooks: cannot load ${path}: ${(err as Error).message}`);
  }
  const hooks = typeof loaded.hooks === 'function' ? loaded.hooks(env) : loaded.hooks;
  if (!hooks || typeof hooks !== 'object') {
    throw new CatalogError(`hooks: ${path} exports no \`hooks\` object or function`);
  }
  return hooks as ToolHooks;
}
