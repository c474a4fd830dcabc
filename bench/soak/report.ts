// The soak's figures: the calls and how they ended (as the clients saw them and as Temporal holds
// them), the refusals by reason, the probes, and for each fault the calls that overlapped it and the
// worst answer time among them; then whether anything was lost, run twice or crossed principals.
import type { Audit } from './audit.ts';
import type { CallRecord, SoakCalls } from './calls.ts';
import { type Fault, seconds } from './chaos.ts';
import { type Finding, type Job, type JobContext, PROBE_PATHS } from './job-types.ts';
import type { SoakSettings } from './settings.ts';

/** A fault's window runs from the kill until this long after it is back (clients reconnecting). */
const SETTLE_MS = 5_000;
/** How many of the slowest answers the report names. */
const SLOWEST = 5;

interface FaultWindow {
  fault: Fault;
  calls: number;
  refused: number;
  worstMs: number;
}

export interface SoakResult {
  settings: SoakSettings;
  began: number;
  jobs: number;
  accepted: number;
  /** Starts refused for good, by reason. */
  refusedStarts: Record<string, number>;
  /** As the clients saw them end. */
  seen: { completed: number; cancelled: number; abandoned: number };
  answeredInput: number;
  unconfirmedFollowed: number;
  audit: Audit;
  probes: JobContext['probes'];
  calls: number;
  /** Every refused HTTP call of the clients' own, by reason. */
  refusals: Record<string, number>;
  windows: FaultWindow[];
  outside: { calls: number; p50: number; p99: number; worst: number };
  /** Calls given up at the deadline: who, and their last calls. */
  abandonedTrails: string[];
  /** The slowest answers of the whole run. */
  slowest: CallRecord[];
  findings: Finding[];
  ok: boolean;
}

const tally = (values: Iterable<string>) => {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

const overlaps = (call: CallRecord, from: number, to: number) =>
  call.sent < to && call.sent + call.ms >= from;

function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number);
}

/**
 * The calls of each fault's window, and the answer times of those in none. Each call counts in the
 * first window it overlaps (a call a fault held up counts there, not in the next one it is open in).
 */
function faultWindows(faults: readonly Fault[], records: readonly CallRecord[]) {
  const windowOf = (call: CallRecord) =>
    faults.findIndex((fault) => overlaps(call, fault.killedAt, fault.backAt + SETTLE_MS));
  const byWindow = faults.map((): CallRecord[] => []);
  const outside: number[] = [];
  for (const call of records) {
    const index = windowOf(call);
    if (index < 0) outside.push(call.ms);
    else byWindow[index]?.push(call);
  }
  outside.sort((a, b) => a - b);
  const windows = faults.map((fault, i): FaultWindow => {
    const inside = byWindow[i] ?? [];
    const worstMs = inside.reduce((worst, call) => Math.max(worst, call.ms), 0);
    return { fault, calls: inside.length, refused: inside.filter((call) => call.reason).length, worstMs };
  });
  return { windows, outside };
}

export interface SummaryInput {
  settings: SoakSettings;
  began: number;
  jobs: readonly Job[];
  ctx: JobContext;
  calls: SoakCalls;
  faults: readonly Fault[];
  audit: Audit;
}

export function summarize({ settings, began, jobs, ctx, calls, faults, audit }: SummaryInput): SoakResult {
  const { windows, outside } = faultWindows(faults, calls.records);
  const findings = [...ctx.findings, ...audit.findings];
  const ok =
    audit.lost.length === 0 &&
    audit.unfinished.length === 0 &&
    audit.duplicates.length === 0 &&
    audit.refusedButRan.length === 0 &&
    findings.length === 0 &&
    jobs.some((job) => job.accepted);
  return {
    settings,
    began,
    jobs: jobs.length,
    accepted: jobs.filter((job) => job.accepted).length,
    refusedStarts: tally(jobs.flatMap((job) => (job.refused ? [job.refused] : []))),
    seen: {
      completed: jobs.filter((job) => job.final === 'completed').length,
      cancelled: jobs.filter((job) => job.final === 'cancelled').length,
      abandoned: jobs.filter((job) => job.final === 'abandoned').length,
    },
    answeredInput: jobs.filter((job) => job.answered).length,
    unconfirmedFollowed: jobs.reduce((sum, job) => sum + job.unconfirmed, 0),
    audit,
    probes: ctx.probes,
    calls: calls.records.length,
    refusals: Object.fromEntries(calls.refusals),
    windows,
    outside: {
      calls: outside.length,
      p50: quantile(outside, 0.5),
      p99: quantile(outside, 0.99),
      worst: outside.at(-1) ?? 0,
    },
    abandonedTrails: jobs
      .filter((job) => job.final === 'abandoned')
      .map(
        (job) =>
          `${job.principal.name} ${job.key} (${job.kind}, ${job.tasks ? 'tasks' : 'plain'}) ${job.workflowId}: ${job.trail.join(', ')}`,
      ),
    slowest: [...calls.records].sort((x, y) => y.ms - x.ms).slice(0, SLOWEST),
    findings,
    ok,
  };
}

const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ') || 'none';

/** The probes of each path, a few to a line. */
function probeLines(probes: JobContext['probes']): string[] {
  const cells = PROBE_PATHS.map((path) => {
    const { sent, unknown, inconclusive } = probes[path];
    return `${path} ${sent} (${unknown}/${inconclusive})`;
  });
  const lines: string[] = [];
  for (let i = 0; i < cells.length; i += 4) lines.push(`  ${cells.slice(i, i + 4).join('; ')}`);
  return lines;
}

export function renderSoak(r: SoakResult): string {
  const s = r.settings;
  const a = r.audit;
  const kinds = listed(tally(r.windows.map((w) => w.fault.kind)));
  const crossPrincipal = r.findings.filter((f) => f.kind === 'cross_principal').length;
  const lines = [
    `Soak: ${s.seconds} s of calls at ${s.rate}/s from ${s.principals} principals through 2 gateways, ` +
      `${s.workers} worker(s), one Temporal dev server; seed ${s.seed}, difficulty ${s.difficulty}`,
    `calls: ${r.jobs} made, ${r.accepted} accepted; starts refused for good: ${listed(r.refusedStarts)}`,
    `ended (client): ${r.seen.completed} completed, ${r.seen.cancelled} cancelled, ${r.seen.abandoned} abandoned; ` +
      `answered input ${r.answeredInput}; start_unconfirmed followed ${r.unconfirmedFollowed}`,
    `Temporal: ${a.runs} runs; ${a.completed} completed, ${a.cancelled} cancelled; lost ${a.lost.length}, ` +
      `unfinished ${a.unfinished.length}, ` +
      `duplicates ${a.duplicates.length}, refused but ran ${a.refusedButRan.length}; ` +
      `runs the list showed open that a describe found closed ${a.visibilityLag}`,
    `cross-principal findings ${crossPrincipal}, other findings ${r.findings.length - crossPrincipal}; probes of ` +
      `another principal's task by path (sent: answered as unknown or showing nothing foreign / unanswered in a fault):`,
    ...probeLines(r.probes),
    `HTTP calls ${r.calls}; refused by reason: ${listed(r.refusals)}`,
    `faults: ${r.windows.length} (${kinds}); a window runs from the kill to ${SETTLE_MS / 1_000} s after the process is ` +
      'back, and holds every call open in it (a call open in two, in the first)',
    '',
    '| # | at | fault | down | back after | calls in window | refused | worst answer |',
    '|---|---|---|---|---|---|---|---|',
    ...r.windows.map(({ fault: f, calls, refused, worstMs }, i) => {
      const name = f.kind === 'temporal' ? 'Temporal dev server' : `${f.kind} ${f.index + 1}`;
      return (
        `| ${i + 1} | ${seconds(f.killedAt - r.began)} | ${name} SIGKILL | ${seconds(f.restartedAt - f.killedAt)} | ` +
        `${seconds(f.backAt - f.killedAt)} | ${calls} | ${refused} | ${worstMs} ms |`
      );
    }),
    '',
    `outside the windows: ${r.outside.calls} calls, p50 ${r.outside.p50} ms, p99 ${r.outside.p99} ms, worst ${r.outside.worst} ms`,
    `slowest answers: ${r.slowest
      .map(
        (c) =>
          `${c.method} to gateway ${c.gateway + 1} at ${seconds(c.sent - r.began)}: ${c.ms} ms${c.reason ? ` (${c.reason})` : ''}`,
      )
      .join('; ')}`,
  ];
  const abandoned = r.abandonedTrails.map((t) => `abandoned: ${t}`);
  if (abandoned.length > 0)
    lines.push('', 'CALLS THAT NEVER SAW THEIR END:', ...abandoned.slice(0, 20).map((p) => `  ${p}`));
  const problems = [
    ...a.lost,
    ...a.duplicates,
    ...a.refusedButRan,
    ...r.findings.map((f) => `${f.kind}: ${f.text}`),
  ];
  if (problems.length > 0) lines.push('', 'FINDINGS:', ...problems.slice(0, 50).map((p) => `  ${p}`));
  return lines.join('\n');
}
