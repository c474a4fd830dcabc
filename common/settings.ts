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
