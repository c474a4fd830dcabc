// JSON Schema (draft 2020-12) with Ajv, the field's validator: tool arguments against a catalog
// entry's inputSchema (defaults filled in), and the catalog file against its own schema.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

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

/** Compiles a schema; throws with Ajv's reason when it is not a valid schema. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
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

/**
 * Validates `value` (a copy: defaults are filled into it); returns the copy, or throws an Error
 * whose message names the first bad field.
 */
export function validated<T>(validate: ValidateFunction, value: unknown): T {
  const copy = structuredClone(value);
  if (validate(copy)) return copy as T;
  const first = validate.errors?.[0];
  throw new Error(first ? describeSchemaError(first) : 'does not match the schema');
}
