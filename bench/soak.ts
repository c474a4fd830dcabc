// Soak with faults (`npm run soak`): steady starts, polls, cancels and input answers from many
// principals through two gateway processes against one Temporal dev server, while a chaos loop
// SIGKILLs and restarts a worker, a gateway and the Temporal server at random (seeded) intervals.
// At the end every accepted call is accounted for from Temporal's own records: one run per
// idempotency key, closed completed or cancelled, under its own principal. Prints the counts and
// the worst answer time during each fault; exits 1 on anything lost, run twice or crossing
// principals.
//
//   npm run soak     (SOAK_MINUTES 10, SOAK_RATE 2, SOAK_PRINCIPALS 8, SOAK_SEED; bench/soak/settings.ts)
import { fileURLToPath } from 'node:url';
import { auditRuns } from './soak/audit.ts';
import { SoakCalls } from './soak/calls.ts';
import { type Fault, runChaos } from './soak/chaos.ts';
import { type Job, type JobContext, noProbes } from './soak/job-types.ts';
import { runLoad } from './soak/load.ts';
import { renderSoak, type SoakResult, summarize } from './soak/report.ts';
import { Random, type SoakSettings, soakSettings } from './soak/settings.ts';
import { SoakStack } from './soak/stack.ts';

const PROGRESS_EVERY_MS = 10_000;

/** One soak: the stack started, the load and the chaos for `settings.seconds`, the drain, the audit. */
export async function runSoak(settings: SoakSettings, log: (line: string) => void): Promise<SoakResult> {
  log(`starting Temporal, ${settings.workers} worker(s) and 2 gateways (seed ${settings.seed})`);
  const stack = await SoakStack.start(settings);
  try {
    const began = Date.now();
    const until = began + settings.seconds * 1_000;
    const calls = new SoakCalls(stack.gatewayUrls);
    const random = new Random(settings.seed);
    const ctx: JobContext = {
      calls,
      deadline: until + settings.drainSeconds * 1_000,
      owners: new Map(),
      findings: [],
      probes: noProbes(),
      probed: 0,
      other: (principal) => {
        const others = stack.principals.filter((p) => p !== principal);
        return others[random.below(others.length)] as (typeof others)[number];
      },
    };
    const jobs: Job[] = [];
    const faults: Fault[] = [];
    const progress = setInterval(() => log(progressLine(jobs, calls, faults)), PROGRESS_EVERY_MS);
    try {
      const chaos = runChaos({ stack, settings, random: new Random(settings.seed + 1), until, log, faults });
      // A restart that failed for good leaves no stack to call: the calls stop trying at once.
      chaos.catch(() => {
        ctx.deadline = 0;
      });
      await runLoad({ settings, principals: stack.principals, ctx, random, until, jobs });
      await chaos;
    } finally {
      clearInterval(progress);
    }
    log(
      `calls done ${((Date.now() - until) / 1_000).toFixed(1)} s after the last start; auditing Temporal's runs`,
    );
    const audit = await auditRuns(stack.temporalAddress, stack.taskQueue, jobs);
    return summarize({ settings, began, jobs, ctx, calls, faults, audit });
  } finally {
    await stack.close();
  }
}

function progressLine(jobs: readonly Job[], calls: SoakCalls, faults: readonly Fault[]): string {
  const accepted = jobs.filter((job) => job.accepted).length;
  const ended = jobs.filter((job) => job.final !== undefined || job.refused !== undefined).length;
  return `${jobs.length} calls (${accepted} accepted, ${ended} ended), ${calls.records.length} HTTP calls, ${faults.length} faults`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = (line: string) => process.stderr.write(`soak: ${line}\n`);
  const result = await runSoak(soakSettings(), log);
  process.stdout.write(`${renderSoak(result)}\n`);
  log(
    result.ok
      ? "ok: nothing lost, nothing run twice, no principal saw another's task"
      : 'FAILED: see FINDINGS',
  );
  process.exit(result.ok ? 0 : 1);
}
