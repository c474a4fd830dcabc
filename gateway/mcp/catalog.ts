// The tool catalog: which Temporal workflows the gateway serves as MCP tools, each entry checked
// and completed with the defaults, and the lookups by name and task id. Reading a catalog (the file
// MCP_TOOLS_FILE names, or the built-in one when unset) is catalog-file.ts. A bad entry stops the
// gateway at start with the file, the entry and the field. Schemas are JSON Schema 2020-12, checked
// with Ajv (the field's validator).
//
// An entry may have hooks that override parts of how the tool's runs read (its presentation:
// summary line, status messages, progress, outcome, the workflow's argument). The built-in mining
// entry has some; most need none.
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { type SecretArguments, secretArguments } from '../shared/secret-arguments.ts';
import { prefixFault, type TaskName, taskIdPrefix } from '../temporal/task-ids.ts';
import type { ProgressSource } from '../temporal/view.ts';
import { genericPresentation } from './presentation.ts';
import type { Presentation } from './presentation-hooks.ts';
import { compileSchema, type JsonSchema, mirroredHeaders, type ParamHeader } from './schemas.ts';
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
  /** Longest one of its runs may last (Temporal's execution timeout): then it is timed out, freeing its slot. */
  maxDurationMs: number;
  /** Temporal's priority key of its runs, 1 (first) to 5 (last); Temporal's default, 3, when absent. */
  priority?: number;
  idempotencyKeyArgument?: string;
  progressQuery?: string;
  /**
   * How its runs tell their progress: `published` to the run's memo (one describe reads it; the
   * query only for a run that has not published), or only by answering `progressQuery`.
   */
  progressForm: 'published' | 'query';
  /** Where a view of one of its runs reads its progress (from the two above). */
  progress: ProgressSource;
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
  /** The places its inputSchema marks `writeOnly` (at any depth): secrets, kept with the run only as a digest. */
  secrets?: SecretArguments;
  /** The inputSchema, compiled. */
  validateArguments: ValidateFunction;
  /** The arguments its requests mirror into Mcp-Param-* headers (`x-mcp-header`). */
  paramHeaders: ParamHeader[];
}

export type TaskSupport = 'optional' | 'required' | 'forbidden';

function progressSource(raw: { progressQuery?: string; progressForm?: string }): ProgressSource {
  return {
    ...(raw.progressQuery ? { progressQuery: raw.progressQuery } : {}),
    published: raw.progressForm === 'published',
  };
}
export type ClientCapabilityName = 'elicitation' | 'sampling' | 'roots';

export interface CatalogDefaults {
  taskQueue: string;
  waitBudgetMs: number;
}

/** `maxDurationMs` when an entry names none (far above any tool meant for a call, and finite), and its range. */
const DEFAULT_MAX_DURATION_MS = 7 * 86_400_000;
export const [MIN_MAX_DURATION_MS, MAX_MAX_DURATION_MS] = [1_000, 365 * 86_400_000];

/** An OAuth scope token (RFC 6749 §3.3): visible ASCII but space, `"` and `\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

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
export type CatalogEntry = Omit<
  Partial<CatalogTool>,
  'companions' | 'presentation' | 'validateArguments' | 'progress'
> & {
  name: string;
  description: string;
  workflow: string;
  inputSchema: JsonSchema;
  companions?: Partial<Companions>;
  hooks?: string | ToolHooks;
};

/** A fault in one entry (`field: reason`); the loader adds the catalog and the entry. */
export class CatalogError extends Error {}

const fail = (field: string, reason: string): never => {
  throw new CatalogError(`${field}: ${reason}`);
};

/**
 * An entry's schemas checked (JSON Schema that compiles, arguments an object, `x-mcp-header`
 * declarations, the idempotency key a string argument, respond only with an input signal), with
 * what the gateway keeps of them: the compiled arguments check, the mirrored headers, the secrets.
 */
function checkedSchemas(raw: Omit<CatalogEntry, 'hooks'>) {
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
  const properties = (inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const secrets = checkedSecrets(inputSchema);
  if (key !== undefined && properties[key]?.type !== 'string') {
    fail('idempotencyKeyArgument', `"${key}" must be a string property of inputSchema`);
  }
  if (raw.companions?.respond && !raw.inputSignal) {
    fail('companions.respond', 'needs inputSignal: only a tool that takes input has a respond companion');
  }
  return { inputSchema, validateArguments, paramHeaders, secrets };
}

/** The schema's secrets; none mirrored into a header, where it would travel in clear. */
function checkedSecrets(inputSchema: JsonSchema): SecretArguments | undefined {
  let secrets: SecretArguments | undefined;
  try {
    secrets = secretArguments(inputSchema);
  } catch (err) {
    return fail('inputSchema', (err as Error).message);
  }
  const [mirrored] = secrets?.mirrored ?? [];
  if (mirrored !== undefined)
    fail(
      'inputSchema',
      `the secret (writeOnly) argument ${mirrored} carries x-mcp-header: a header would copy it in clear`,
    );
  return secrets;
}

/**
 * The entry's id prefix (its name when it gives none), refused when ids made under it would read
 * back as another form's (task-ids.ts): such a tool's every task would be lost once started.
 */
function checkedIdPrefix(raw: { name: string; idPrefix?: string }): string {
  const prefix = raw.idPrefix ?? raw.name;
  const fault = prefixFault(prefix);
  if (fault === undefined) return prefix;
  const field = raw.idPrefix === undefined ? 'name' : 'idPrefix';
  const remedy = raw.idPrefix === undefined ? '; give the tool an idPrefix without that ending' : '';
  return fail(field, `task ids under "${prefix}" would not read back as its own: ${fault}${remedy}`);
}

/** One entry of a catalog (file or built-in), checked and completed with the defaults. */
export function catalogTool(
  raw: Omit<CatalogEntry, 'hooks'> & { hooks?: ToolHooks },
  defaults: CatalogDefaults,
): CatalogTool {
  const name = raw.name as string;
  const { inputSchema, validateArguments, paramHeaders, secrets } = checkedSchemas(raw);
  const key = raw.idempotencyKeyArgument;
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
    maxDurationMs: raw.maxDurationMs ?? DEFAULT_MAX_DURATION_MS,
    ...(raw.priority === undefined ? {} : { priority: raw.priority }),
    ...(key ? { idempotencyKeyArgument: key } : {}),
    ...(raw.progressQuery ? { progressQuery: raw.progressQuery } : {}),
    progressForm: raw.progressForm ?? 'query',
    progress: progressSource(raw),
    ...(raw.inputSignal ? { inputSignal: raw.inputSignal } : {}),
    companions: {
      result: raw.companions?.result ?? generic.result,
      cancel: raw.companions?.cancel ?? generic.cancel,
      ...(raw.inputSignal ? { respond: raw.companions?.respond ?? generic.respond } : {}),
      ...(raw.companions?.list ? { list: raw.companions.list } : {}),
    },
    idPrefix: checkedIdPrefix(raw),
    ...(raw.scopes ? { scopes: raw.scopes } : {}),
    taskSupport: raw.taskSupport ?? 'optional',
    resultShape: raw.resultShape ?? 'json',
    ...(raw.requiredClientCapabilities ? { requiredClientCapabilities: raw.requiredClientCapabilities } : {}),
    presentation: raw.hooks ? { ...genericPresentation, ...raw.hooks } : genericPresentation,
    ...(secrets ? { secrets } : {}),
    validateArguments,
  };
}

/**
 * Every MCP tool name the catalog serves (tools and companions) must be unique, and so must every
 * idPrefix: a task id names its tool by it.
 */
export function assertUniqueNames(tools: CatalogTool[], where: (index: number) => string): void {
  const seen = new Map<string, string>();
  const prefixes = new Map<string, string>();
  tools.forEach((tool, index) => {
    const owner = prefixes.get(tool.idPrefix);
    if (owner) throw new Error(`${where(index)}: the idPrefix "${tool.idPrefix}" is also used by ${owner}`);
    prefixes.set(tool.idPrefix, where(index));
    const { result, cancel, respond, list } = tool.companions;
    const names = [tool.name, result, cancel, respond, list];
    for (const name of names) {
      if (name === undefined) continue;
      const other = seen.get(name);
      if (other) throw new Error(`${where(index)}: the tool name "${name}" is also used by ${other}`);
      seen.set(name, where(index));
    }
  });
}

// One compiled generic tool for every run of a tool no longer served (compiling per call would
// keep a schema per call in Ajv).
const GONE_TOOL = catalogTool(
  { name: 'gone', description: 'gone', workflow: 'gone', inputSchema: { type: 'object' } },
  { taskQueue: '', waitBudgetMs: 0 },
);

/** What a companion tool does for the tool it serves (methods.ts declares each role). */
export type CompanionRole = keyof Companions;

/** The catalog as the MCP layer uses it: by tool name, by companion name and by task id prefix. */
export class Catalog {
  private readonly byName = new Map<string, CatalogTool>();
  private readonly byPrefix = new Map<string, CatalogTool>();
  private readonly companions = new Map<string, { tool: CatalogTool; role: CompanionRole }>();
  /** Each tool's Mcp-Param-* declarations, by tool name (the HTTP layer checks requests against them). */
  readonly paramHeaders = new Map<string, readonly ParamHeader[]>();

  constructor(readonly tools: CatalogTool[]) {
    assertUniqueNames(tools, (index) => `tool ${tools[index]?.name}`);
    for (const tool of tools) {
      this.byName.set(tool.name, tool);
      this.byPrefix.set(tool.idPrefix, tool);
      this.paramHeaders.set(tool.name, tool.paramHeaders);
      for (const [role, name] of Object.entries(tool.companions) as [CompanionRole, string | undefined][])
        if (name !== undefined) this.companions.set(name, { tool, role });
    }
  }

  tool(name: string): CatalogTool | undefined {
    return this.byName.get(name);
  }

  /** The tool a companion serves, and its role (list included); undefined for any other name. */
  companionOf(name: string): { tool: CatalogTool; role: CompanionRole } | undefined {
    return this.companions.get(name);
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
  toolOfTask(taskId: TaskName): CatalogTool | undefined {
    const prefix = taskIdPrefix(taskId);
    return prefix === undefined ? undefined : this.byPrefix.get(prefix);
  }
}
