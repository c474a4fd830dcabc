// Reading numeric settings from the environment, the same way for every process: a bad value
// stops the start with the variable's name, its range and what was given.

/** The integer in `env[name]` (blank: `fallback`); throws naming the variable when out of range. */
export function integerSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * The `name=value` entries of a list setting (`a=1;b=2`), split at `separator` and at each entry's
 * last `=`, trimmed, blanks skipped. An entry without a name or an `=`, or a name given twice,
 * stops the start with the variable's name and `shape` (what an entry should look like).
 */
export function nameValueEntries(
  text: string | undefined,
  separator: string,
  name: string,
  shape: string,
): Array<[string, string]> {
  const seen = new Set<string>();
  const entries: Array<[string, string]> = [];
  for (const entry of (text ?? '')
    .split(separator)
    .map((item) => item.trim())
    .filter(Boolean)) {
    const at = entry.lastIndexOf('=');
    const key = entry.slice(0, at).trim();
    if (at <= 0 || key === '') throw new Error(`${name}: "${entry}" is not ${shape}`);
    if (seen.has(key)) throw new Error(`${name}: "${key}" is listed twice`);
    seen.add(key);
    entries.push([key, entry.slice(at + 1).trim()]);
  }
  return entries;
}
