// The soak's settings, from the environment (SOAK_*), and the seeded random numbers its chaos and
// its load draw from, so a run's schedule can be told again from its seed.

export interface SoakSettings {
  /** How long calls are started for (SOAK_SECONDS, else SOAK_MINUTES × 60). */
  seconds: number;
  /** New client calls (jobs) a second, all principals together. */
  rate: number;
  principals: number;
  /** Worker processes on the queue (one of them is killed at a time). */
  workers: number;
  /** Seeds the chaos schedule and the mix of calls. */
  seed: number;
  /** The pause between the end of one fault and the next, drawn in [min, max] seconds. */
  faultGapSeconds: [number, number];
  /** How long a killed process stays down before it is started again, drawn in [min, max] seconds. */
  downSeconds: [number, number];
  /** After the last start, how long the soak waits for every call to end. */
  drainSeconds: number;
  /** Leading zero bits of the mining calls: low, so a run takes seconds. */
  difficulty: number;
  /** The gateways' wait budget: calls that outlast it follow a handle. */
  waitBudgetMs: number;
}

function numberSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min)
    throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

function rangeSetting(env: NodeJS.ProcessEnv, name: string, fallback: [number, number]): [number, number] {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const [low = Number.NaN, high = low] = raw.split(/[-,]/).map(Number);
  if (!(low >= 0) || !(high >= low)) throw new Error(`${name} must be "min-max" seconds, got "${raw}"`);
  return [low, high];
}

/** The settings `env` names; the defaults are the ten-minute run of `npm run soak`. */
export function soakSettings(env: NodeJS.ProcessEnv = process.env): SoakSettings {
  const minutes = numberSetting(env, 'SOAK_MINUTES', 10);
  return {
    seconds: numberSetting(env, 'SOAK_SECONDS', minutes * 60, 1),
    rate: numberSetting(env, 'SOAK_RATE', 2, 0.01),
    principals: Math.max(2, Math.floor(numberSetting(env, 'SOAK_PRINCIPALS', 8, 2))),
    workers: Math.max(1, Math.floor(numberSetting(env, 'SOAK_WORKERS', 2, 1))),
    seed: Math.floor(numberSetting(env, 'SOAK_SEED', Date.now() % 1_000_000)),
    faultGapSeconds: rangeSetting(env, 'SOAK_FAULT_GAP_S', [15, 45]),
    downSeconds: rangeSetting(env, 'SOAK_DOWN_S', [1, 6]),
    drainSeconds: numberSetting(env, 'SOAK_DRAIN_S', 120, 1),
    difficulty: Math.floor(numberSetting(env, 'SOAK_DIFFICULTY', 14, 1)),
    waitBudgetMs: Math.floor(numberSetting(env, 'SOAK_WAIT_BUDGET_MS', 750)),
  };
}

/** A seeded generator (mulberry32): the same seed draws the same numbers. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** In [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** In [low, high]. */
  between([low, high]: [number, number]): number {
    return low + (high - low) * this.next();
  }

  /** An integer in [0, count). */
  below(count: number): number {
    return Math.floor(this.next() * count);
  }

  /** `items` in a random order (a copy). */
  shuffled<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  }
}
