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

export interface JobContext {
  calls: SoakCalls;
  /** Gives up after this (epoch ms). */
  deadline: number;
  /** Task id → the principal whose call it answered. */
  owners: Map<string, string>;
  findings: Finding[];
  /** Another principal than `principal`, to probe its task. */
  other(principal: Principal): Principal;
  probes: { sent: number; notFound: number; inconclusive: number };
}
