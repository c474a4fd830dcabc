// The soak's steady load: new client calls at SOAK_RATE a second, the principals in turn, each of
// a kind drawn from the seed (half run to completion, a quarter are cancelled, a quarter wait for
// an approval the client gives), half of them as Tasks-extension clients, half as plain ones.
import { setTimeout as delay } from 'node:timers/promises';
import { runJob } from './job.ts';
import type { Job, JobContext, JobKind } from './job-types.ts';
import type { Random, SoakSettings } from './settings.ts';
import type { Principal } from './stack.ts';

export interface LoadOptions {
  settings: SoakSettings;
  principals: readonly Principal[];
  ctx: JobContext;
  random: Random;
  /** No call starts after this (epoch ms). */
  until: number;
  /** Every call, as it is made (for progress lines). */
  jobs: Job[];
}

const KINDS: readonly JobKind[] = ['complete', 'complete', 'cancel', 'input'];

/** Starts calls until `until`; resolves once every one has ended (or given up). */
export async function runLoad({
  settings,
  principals,
  ctx,
  random,
  until,
  jobs,
}: LoadOptions): Promise<void> {
  const running: Promise<void>[] = [];
  const began = Date.now();
  for (let i = 0; ; i++) {
    const at = began + (i * 1_000) / settings.rate;
    if (at >= until || Date.now() >= ctx.deadline) break;
    await delay(Math.max(0, at - Date.now()));
    const principal = principals[i % principals.length] as Principal;
    const job: Job = {
      principal,
      kind: KINDS[random.below(KINDS.length)] as JobKind,
      tasks: random.next() < 0.5,
      key: `soak-${settings.seed}-${i}`,
      data: `${principal.name}/${i}`,
      // From inline answers (a block or two) to runs that outlast the wait budget.
      blocks: 1 + random.below(16),
      difficulty: settings.difficulty,
      accepted: false,
      answered: false,
      unconfirmed: 0,
      trail: [],
    };
    jobs.push(job);
    running.push(runJob(job, ctx));
  }
  await Promise.all(running);
}
