// JSON Schema as the catalog and the tools use it: schemas compiled with Ajv (2020-12, the field's
// validator), zod schemas listed as JSON Schema, a validation error told naming its field, and the
// `x-mcp-header` declarations (SEP-2243) an inputSchema makes.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type * as z from 'zod/v4';
import { toJSONSchema } from 'zod/v4';

export type JsonSchema = Record<string, unknown>;

// Unknown keywords are errors (a typo in a schema fails the start); type-shape strictness is off so
// ordinary hand-written schemas compile.
const ajv = new Ajv2020({
  allErrors: false,
  useDefaults: true,
  strictSchema: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowUnionTypes: true,
  logger: false,
});
addFormats.default(ajv);
// SEP-2243: a property mirrored into an `Mcp-Param-<Name>` request header (the HTTP layer checks it).
ajv.addKeyword({ keyword: 'x-mcp-header', schemaType: 'string' });
// Ajv's strict mode calls a 2020-12 `$anchor` unknown inside a subschema reached through `$ref`
// (anchors still resolve: Ajv reads them when it indexes the schema).
ajv.addKeyword('$anchor');

/** Compiles a schema; throws with Ajv's reason when it is not a valid schema. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}

/** A zod schema as the JSON Schema MCP lists (without the `$schema` dialect line). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = toJSONSchema(schema, { io }) as JsonSchema;
  return rest;
}

/** "difficulty: must be <= 40" — the field first, then what is wrong with it. */
export function describeSchemaError(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required' && params.missingProperty) {
    return `${[...path, params.missingProperty].join('.')}: is required`;
  }
  if (error.keyword === 'additionalProperties' && params.additionalProperty) {
    return `${[...path, params.additionalProperty].join('.')}: is not an allowed field`;
  }
  return path.length > 0 ? `${path.join('.')}: ${error.message}` : `${error.message}`;
}

/** RFC 9110 token: what a header name (and so an `x-mcp-header` value) may be made of. */
const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** One argument an inputSchema mirrors into a header. */
export interface ParamHeader {
  /** The argument's place: the chain of `properties` keys from the schema root. */
  path: string[];
  /** `<Name>` of `Mcp-Param-<Name>`, as declared. */
  name: string;
  type: unknown;
}

/**
 * Every `x-mcp-header` of a schema, as written, on the schema and on properties reached through
 * `properties` keys only (the spec's "statically reachable"); the catalog refuses the bad ones.
 */
export function headerDeclarations(schema: JsonSchema): { path: string[]; name: unknown; type: unknown }[] {
  const found: { path: string[]; name: unknown; type: unknown }[] = [];
  const visit = (node: unknown, path: string[]) => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    const { properties, 'x-mcp-header': name, type } = node as Record<string, unknown>;
    if (name !== undefined) found.push({ path, name, type });
    if (!properties || typeof properties !== 'object') return;
    for (const [key, child] of Object.entries(properties)) visit(child, [...path, key]);
  };
  visit(schema, []);
  return found;
}

const HEADER_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * `x-mcp-header` declarations (SEP-2243): each on a property reached through `properties`, of a
 * primitive type, named by an HTTP token, no two alike (header names ignore case). Returns them, for
 * the HTTP layer to check requests against.
 */
export function mirroredHeaders(
  schema: JsonSchema,
  fail: (field: string, reason: string) => never,
): ParamHeader[] {
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
