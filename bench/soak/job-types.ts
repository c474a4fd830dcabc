// What the soak knows of one call (a job) and what every call shares while it runs: the jobs'
// record, the findings, the probes' counts. Apart from job.ts so that the probe, the load, the
// audit and the report read them without importing the calls' code.
import type { SoakCalls } from './calls.ts';
import type { Principal } from './stack.ts';

export type JobKind = 'complete' | 'cancel' | 'input';

export interface Job {
  principal: Principal;
  kind: JobKind;
  /** A Tasks-extension client (tasks/*), else a plain one (the companions). */
  tasks: boolean;
  key: string;
  data: string;
  blocks: number;
  difficulty: number;
  workflowId?: string;
  accepted: boolean;
  /** Why the start was refused for good. */
  refused?: string;
  /** How it ended, as the client saw it; `abandoned` when the deadline came first. */
  final?: 'completed' | 'cancelled' | 'failed' | 'abandoned';
  answered: boolean;
  /** start_unconfirmed answers this call followed. */
  unconfirmed: number;
  /** Its last few calls and what they answered (for the report of a call that went wrong). */
  trail: string[];
}

export interface Finding {
  kind: 'cross_principal' | 'wrong_answer';
  text: string;
}

/** Every way a principal can name or see another's task; the soak probes each. */
export const PROBE_PATHS = [
  'tasks/get',
  'tasks/cancel',
  'tasks/update',
  'get_mining_result',
  'cancel_mining',
  'respond_to_mining',
  'subscriptions/listen',
  'resources/read',
  'resources/list',
  '2025-11-25 tasks/get',
  '2025-11-25 tasks/result',
  '2025-11-25 tasks/list',
  '2025-11-25 input answer',
] as const;

export type ProbePath = (typeof PROBE_PATHS)[number];

/** A path's probes: sent, answered as for a task that does not exist (or nothing foreign shown), unanswered in a fault. */
interface ProbeCount {
  sent: number;
  unknown: number;
  inconclusive: number;
}

export type Probes = Record<ProbePath, ProbeCount>;

export function noProbes(): Probes {
  return Object.fromEntries(
    PROBE_PATHS.map((path) => [path, { sent: 0, unknown: 0, inconclusive: 0 }]),
  ) as Probes;
}

/** What a probe carries in any input it sends, so a run's history shows whether one ever got through. */
export const PROBE_MARKER = 'soak-foreign-probe';

export interface JobContext {
  calls: SoakCalls;
  /** Gives up after this (epoch ms). */
  deadline: number;
  /** Task id → the principal whose call it answered. */
  owners: Map<string, string>;
  findings: Finding[];
  /** Another principal than `principal`, to probe its task. */
  other(principal: Principal): Principal;
  probes: Probes;
  /** Counts the jobs probed, to spread the probes of listings, push and resources over them. */
  probed: number;
}
