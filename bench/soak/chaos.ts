// The chaos loop: at random intervals (seeded) it SIGKILLs a worker, a gateway or the Temporal dev
// server, keeps it down a random while, and starts it again where it was. Kinds come in rounds of
// all three in a shuffled order, so every kind is hit once in any three faults in a row.
import { setTimeout as delay } from 'node:timers/promises';
import type { Random, SoakSettings } from './settings.ts';
import type { FaultKind, SoakStack } from './stack.ts';

const KINDS: readonly FaultKind[] = ['worker', 'gateway', 'temporal'];
/** A restart that fails (a port not yet released, a slow machine) is tried this often. */
const RESTART_ATTEMPTS = 3;

export interface Fault {
  kind: FaultKind;
  /** Which worker or gateway (0 for Temporal). */
  index: number;
  /** When it was killed (epoch ms). */
  killedAt: number;
  /** When it was started again. */
  restartedAt: number;
  /** When it was ready again. */
  backAt: number;
}

export interface ChaosOptions {
  stack: SoakStack;
  settings: SoakSettings;
  random: Random;
  /** No fault starts after this (epoch ms). */
  until: number;
  log: (line: string) => void;
  /** Each fault is added here once it is back (so a failed restart still leaves the earlier ones). */
  faults: Fault[];
}

/** Injects faults until `until`; resolves once the last one is back. */
export async function runChaos({ stack, settings, random, until, log, faults }: ChaosOptions): Promise<void> {
  let round: FaultKind[] = [];
  for (;;) {
    const gapMs = random.between(settings.faultGapSeconds) * 1_000;
    const downMs = random.between(settings.downSeconds) * 1_000;
    if (Date.now() + gapMs + downMs >= until) break;
    await delay(gapMs);
    if (round.length === 0) round = random.shuffled(KINDS);
    const kind = round.shift() as FaultKind;
    const index = random.below(stack.count(kind));
    const killedAt = Date.now();
    await stack.kill(kind, index);
    log(`fault ${faults.length + 1}: ${kind}${kind === 'temporal' ? '' : ` ${index + 1}`} killed`);
    await delay(downMs);
    const restartedAt = Date.now();
    await restart(stack, kind, index);
    const fault = { kind, index, killedAt, restartedAt, backAt: Date.now() };
    log(
      `fault ${faults.length + 1}: ${kind} back after ${seconds(fault.backAt - killedAt)} ` +
        `(down ${seconds(restartedAt - killedAt)}, restart ${seconds(fault.backAt - restartedAt)})`,
    );
    faults.push(fault);
  }
}

async function restart(stack: SoakStack, kind: FaultKind, index: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await stack.restart(kind, index);
      return;
    } catch (err) {
      if (attempt >= RESTART_ATTEMPTS) throw err;
      await delay(1_000);
    }
  }
}

export const seconds = (ms: number) => `${(ms / 1_000).toFixed(1)} s`;
