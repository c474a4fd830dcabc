// Reading settings from the environment, the same way for every process: each variable has a
// schema (zod) whose error names the variable, its rule and what was given, and a bad value stops
// the start with that one line.
import * as z from 'zod/v4';

/** What a schema's transform gets to report issues through. */
type Context = { issues: z.core.$ZodRawIssue[] };

/**
 * Runs `read`; an Error it throws becomes an issue of the schema being parsed, its message
 * unchanged. Lets a transform use checks that throw, and still fail the way a schema fails.
 */
export function checked<T>(ctx: Context, read: () => T): T {
  try {
    return read();
  } catch (err) {
    ctx.issues.push({ code: 'custom', message: (err as Error).message, input: undefined });
    return z.NEVER;
  }
}

/** The schema of one variable: `read` gets its text (undefined when unset) and throws on a bad one. */
export function setting<T>(name: string, read: (raw: string | undefined) => T) {
  return z
    .string({ error: `${name} must be text` })
    .optional()
    .transform((raw, ctx) => checked(ctx, () => read(raw)));
}

/** The variable's trimmed text, or undefined when unset or blank. */
export function text(name: string) {
  return setting(name, (raw) => raw?.trim() || undefined);
}

/** An integer from `min` to `max` (blank: `fallback`). */
export function integer(name: string, fallback: number, min: number, max: number) {
  return setting(name, (raw) => {
    const given = raw?.trim();
    if (given === undefined || given === '') return fallback;
    const value = Number(given);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`${name} must be an integer from ${min} to ${max}, got "${given}"`);
    }
    return value;
  });
}

/** "true"/"1" or "false"/"0", any case (blank: false). */
export function boolean(name: string) {
  return setting(name, (raw) => {
    const given = raw?.trim().toLowerCase() ?? '';
    if (given === '' || given === 'false' || given === '0') return false;
    if (given === 'true' || given === '1') return true;
    throw new Error(`${name} must be "true" or "false", got "${raw}"`);
  });
}

/** What `schema` makes of `input`; throws an Error with the first issue's message when it fails. */
export function parseSettings<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new Error(result.error.issues[0]?.message ?? 'invalid settings');
  return result.data;
}

/** The integer in `env[name]` (blank: `fallback`); throws naming the variable when out of range. */
export function integerSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  range: { fallback: number; min: number; max: number },
): number {
  return parseSettings(integer(name, range.fallback, range.min, range.max), env[name]);
}

/** The flag in `env[name]` (blank: false); throws naming the variable when it is not one. */
export function booleanSetting(env: NodeJS.ProcessEnv, name: string): boolean {
  return parseSettings(boolean(name), env[name]);
}

/** A list setting of `name=value` entries (`a=1;b=2`). */
export interface NameValueList<T> {
  /** The variable, for error messages. */
  name: string;
  /** What separates entries. */
  separator: string;
  /** What an entry should look like, for error messages. */
  shape: string;
  /** An entry's value (undefined: not a valid one); may throw an error of its own. */
  value(value: string, key: string): T | undefined;
}

/**
 * The entries of a list setting, split at `list.separator` and at each entry's last `=`, trimmed,
 * blanks skipped. An entry without a name or an `=`, a name given twice, or a value `list.value`
 * refuses stops the start with the variable's name and the shape an entry should have.
 */
export function nameValueList<T>(text: string | undefined, list: NameValueList<T>): Map<string, T> {
  const entries = new Map<string, T>();
  for (const entry of (text ?? '')
    .split(list.separator)
    .map((item) => item.trim())
    .filter(Boolean)) {
    const at = entry.lastIndexOf('=');
    const key = entry.slice(0, at).trim();
    if (at <= 0 || key === '') throw new Error(`${list.name}: "${entry}" is not ${list.shape}`);
    if (entries.has(key)) throw new Error(`${list.name}: "${key}" is listed twice`);
    const raw = entry.slice(at + 1).trim();
    const value = list.value(raw, key);
    if (value === undefined) throw new Error(`${list.name}: "${key}=${raw}" is not ${list.shape}`);
    entries.set(key, value);
  }
  return entries;
}
