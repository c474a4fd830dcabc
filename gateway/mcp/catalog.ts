// The tool catalog: which Temporal workflows the gateway serves as MCP tools. Read from the file
// MCP_TOOLS_FILE names (YAML or JSON), or the built-in catalog (mining) when unset. A bad catalog
// stops the gateway at start with the file, the entry and the field. Schemas are JSON Schema
// 2020-12, checked with Ajv (the field's validator).
//
// An entry may name `hooks`: a module (path relative to the catalog file) exporting `hooks`, an
// object or a function of the environment, that overrides parts of how the tool's runs read (its
// presentation: summary line, status messages, progress, outcome, the workflow's argument). The
// built-in mining entry is one such entry; most need none.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { taskIdPrefix } from '../temporal/task-ids.ts';
import { genericPresentation, type Presentation } from './presentation.ts';
import {
  compileSchema,
  describeSchemaError,
  HEADER_TOKEN,
  headerDeclarations,
  type JsonSchema,
  type ParamHeader,
} from './schemas.ts';
import type { Companions } from './start-poll.ts';


export interface CatalogTool {
  name: string;
  title?: string;
  /** What the tool does; the gateway adds how to follow a long call. */
  description: string;
  /** Temporal workflow type. */
  workflow: string;
  taskQueue: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** Longest a call waits before answering with a handle. */
  waitBudgetMs: number;
  idempotencyKeyArgument?: string;
  progressQuery?: string;
  inputSignal?: string;
  companions: Companions;
  /** Task ids of this tool start with `<idPrefix>-`. */
  idPrefix: string;
  /** OAuth scopes a token needs to call the tool, its companions and tasks/* on its tasks. */
  scopes?: string[];
  /**
   * Whether a call may become a task (Tasks extension): `optional` (a task for clients that
   * declared the extension, a start/poll handle for the others), `required` (clients without the
   * extension are refused before anything starts), `forbidden` (never a task: a handle).
   */
  taskSupport: TaskSupport;
  /**
   * Client capabilities a call needs (the workflow always asks for sampling, say): a 2026-07-28
   * request that does not declare them all is refused with -32021 before anything starts.
   */
  requiredClientCapabilities?: ClientCapabilityName[];
  /** `json`: the workflow's result is JSON shown as text and structuredContent; `toolResult`: it is an MCP tool result. */
  resultShape: 'json' | 'toolResult';
  presentation: Presentation;
  /** Arguments whose schema says `writeOnly: true`: secrets, kept with the run only as a digest. */
  secretArguments?: string[];
  /** The inputSchema, compiled. */
  validateArguments: ValidateFunction;
  /** The arguments its requests mirror into Mcp-Param-* headers (`x-mcp-header`). */
  paramHeaders: ParamHeader[];
}

export type TaskSupport = 'optional' | 'required' | 'forbidden';
export type ClientCapabilityName = 'elicitation' | 'sampling' | 'roots';

export interface CatalogDefaults {
  taskQueue: string;
  waitBudgetMs: number;
}

const TOOL_NAME = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$';
/** An OAuth scope token (RFC 6749 §3.3): visible ASCII but space, `"` and `\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
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
          idempotencyKeyArgument: nonEmpty,
          progressQuery: nonEmpty,
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
            },
          },
        },
      },
    },
  },
};

let validateCatalogFile: ValidateFunction | undefined;

/** The generic companion names: for `start_report` (or `report`), get_report_result, cancel_report, respond_to_report. */
export function defaultCompanions(name: string, withRespond: boolean): Companions {
  const base = name.startsWith('start_') ? name.slice('start_'.length) : name;
  return {
    result: `get_${base}_result`,
    cancel: `cancel_${base}`,
    ...(withRespond ? { respond: `respond_to_${base}` } : {}),
  };
}

/** What a catalog entry's hooks may override of how its runs read. */
export type ToolHooks = Partial<Presentation>;

/**
 * A catalog entry as written, in a file or in code (the built-in catalog). `hooks` is a module path
 * in a file (relative to it), the hooks themselves in code.
 */
export type CatalogEntry = Omit<Partial<CatalogTool>, 'companions' | 'presentation' | 'validateArguments'> & {
  name: string;
  description: string;
  workflow: string;
  inputSchema: JsonSchema;
  companions?: Partial<Companions>;
  hooks?: string | ToolHooks;
};

class CatalogError extends Error {}

/** One entry of a catalog (file or built-in), checked and completed with the defaults. */
export function catalogTool(
  raw: Omit<CatalogEntry, 'hooks'> & { hooks?: ToolHooks },
  defaults: CatalogDefaults,
): CatalogTool {
  const name = raw.name as string;
  const fail = (field: string, reason: string): never => {
    throw new CatalogError(`${field}: ${reason}`);
  };
  const inputSchema = raw.inputSchema as JsonSchema;
  if (inputSchema.type !== 'object')
    fail('inputSchema', 'must have "type": "object" (tool arguments are an object)');
  let validateArguments: ValidateFunction;
  try {
    validateArguments = compileSchema(inputSchema);
  } catch (err) {
    return fail('inputSchema', (err as Error).message);
  }
  if (raw.outputSchema) {
    try {
      compileSchema(raw.outputSchema);
    } catch (err) {
      fail('outputSchema', (err as Error).message);
    }
  }
  const paramHeaders = mirroredHeaders(inputSchema, fail);
  const key = raw.idempotencyKeyArgument;
  const properties = (inputSchema.properties ?? {}) as Record<
    string,
    { type?: unknown; writeOnly?: unknown }
  >;
  const secrets = Object.keys(properties).filter((field) => properties[field]?.writeOnly === true);
  if (key !== undefined && properties[key]?.type !== 'string') {
    fail('idempotencyKeyArgument', `"${key}" must be a string property of inputSchema`);
  }
  if (raw.companions?.respond && !raw.inputSignal) {
    fail('companions.respond', 'needs inputSignal: only a tool that takes input has a respond companion');
  }
  const generic = defaultCompanions(name, raw.inputSignal !== undefined);
  return {
    name,
    ...(raw.title ? { title: raw.title } : {}),
    description: raw.description as string,
    workflow: raw.workflow as string,
    taskQueue: raw.taskQueue ?? defaults.taskQueue,
    inputSchema,
    paramHeaders,
    ...(raw.outputSchema ? { outputSchema: raw.outputSchema } : {}),
    ...(raw.annotations ? { annotations: raw.annotations } : {}),
    waitBudgetMs: raw.waitBudgetMs ?? defaults.waitBudgetMs,
    ...(key ? { idempotencyKeyArgument: key } : {}),
    ...(raw.progressQuery ? { progressQuery: raw.progressQuery } : {}),
    ...(raw.inputSignal ? { inputSignal: raw.inputSignal } : {}),
    companions: {
      result: raw.companions?.result ?? generic.result,
      cancel: raw.companions?.cancel ?? generic.cancel,
      ...(raw.inputSignal ? { respond: raw.companions?.respond ?? generic.respond } : {}),
    },
    idPrefix: raw.idPrefix ?? name,
    ...(raw.scopes ? { scopes: raw.scopes } : {}),
    taskSupport: raw.taskSupport ?? 'optional',
    resultShape: raw.resultShape ?? 'json',
    ...(raw.requiredClientCapabilities ? { requiredClientCapabilities: raw.requiredClientCapabilities } : {}),
    presentation: raw.hooks ? { ...genericPresentation, ...raw.hooks } : genericPresentation,
    ...(secrets.length > 0 ? { secretArguments: secrets } : {}),
    validateArguments,
  };
}

const HEADER_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * `x-mcp-header` declarations (SEP-2243): each on a property reached through `properties`, of a
 * primitive type, named by an HTTP token, no two alike (header names ignore case). Returns them, for
 * the HTTP layer to check requests against.
 */
function mirroredHeaders(schema: JsonSchema, fail: (field: string, reason: string) => never): ParamHeader[] {
  const seen = new Map<string, string>();
  const declared = headerDeclarations(schema);
  for (const { path, name, type } of declared) {
    const where = `inputSchema.properties.${path.join('.properties.')}`;
    if (path.length === 0) fail('inputSchema', 'x-mcp-header belongs on a property, not the schema');
    if (typeof name !== 'string' || !HEADER_TOKEN.test(name))
      fail(where, 'x-mcp-header must be an HTTP header token (letters, digits, - and the like)');
    if (typeof type !== 'string' || !HEADER_TYPES.has(type))
      fail(where, 'x-mcp-header needs a property of type string, number, integer or boolean');
    const other = seen.get(String(name).toLowerCase());
    if (other) fail(where, `x-mcp-header "${name}" is also declared by ${other}`);
    seen.set(String(name).toLowerCase(), where);
  }
  return declared as ParamHeader[];
}

/** Every MCP tool name the catalog serves (tools and companions) must be unique. */
function assertUniqueNames(tools: CatalogTool[], where: (index: number) => string): void {
  const seen = new Map<string, string>();
  tools.forEach((tool, index) => {
    const names = [tool.name, tool.companions.result, tool.companions.cancel, tool.companions.respond];
    for (const name of names) {
      if (name === undefined) continue;
      const other = seen.get(name);
      if (other) throw new Error(`${where(index)}: the tool name "${name}" is also used by ${other}`);
      seen.set(name, where(index));
    }
  });
}

/** Reads and checks a catalog file. Throws an Error naming the file, the entry and the field. */
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
  validateCatalogFile ??= compileSchema(CATALOG_FILE_SCHEMA);
  const raw = structuredClone(document) as { tools?: CatalogEntry[] };
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
      const hooks = typeof entry.hooks === 'string' ? await loadHooks(entry.hooks, path, env) : undefined;
      tools.push(catalogTool({ ...entry, hooks }, defaults));
    } catch (err) {
      if (err instanceof CatalogError) throw new Error(`${source}: ${entryName(index)}: ${err.message}`);
      throw err;
    }
  }
  assertUniqueNames(tools, (index) => `${source}: ${entryName(index)}`);
  return tools;
}

/** A hooks module named by a catalog file: its `hooks` export, an object or a function of the environment. */
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

// One compiled generic tool for every run of a tool no longer served (compiling per call would
// keep a schema per call in Ajv).
const GONE_TOOL = catalogTool(
  { name: 'gone', description: 'gone', workflow: 'gone', inputSchema: { type: 'object' } },
  { taskQueue: '', waitBudgetMs: 0 },
);

/** The catalog as the MCP layer uses it: by tool name and by task id prefix. */
export class Catalog {
  private readonly byName = new Map<string, CatalogTool>();
  private readonly byPrefix = new Map<string, CatalogTool>();

  constructor(readonly tools: CatalogTool[]) {
    assertUniqueNames(tools, (index) => `tool ${tools[index]?.name}`);
    for (const tool of tools) {
      this.byName.set(tool.name, tool);
      this.byPrefix.set(tool.idPrefix, tool);
    }
  }

  tool(name: string): CatalogTool | undefined {
    return this.byName.get(name);
  }

  /** The tool that started a run; a tool since gone from the catalog reads generically. */
  toolOfRun(name: string): CatalogTool {
    return (
      this.byName.get(name) ?? {
        ...GONE_TOOL,
        name,
        description: name,
        workflow: name,
        idPrefix: name,
        companions: defaultCompanions(name, false),
      }
    );
  }

  /** The tool a task id names by its prefix (no Temporal call), if the catalog serves it. */
  toolOfTask(taskId: string): CatalogTool | undefined {
    const prefix = taskIdPrefix(taskId);
    return prefix === undefined ? undefined : this.byPrefix.get(prefix);
  }

  /** Every result companion: the tools whose calls are polls (the poll rate limit applies). */
  isPollTool(name: string): boolean {
    return this.tools.some((tool) => tool.companions.result === name);
  }
}
