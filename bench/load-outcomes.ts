// What became of every task of the load run (bench/load.ts), counted rather than thrown: completed,
// ended otherwise, refused at its start (by reason), lost (not settled by the deadline); and every
// error answer, starts and polls alike, by its reason or HTTP status. The problems that fail the run
// and the Markdown table it prints (and the bench report shows) are read off these counts.
import type { RpcAnswer } from '../test/support/mcp-http.ts';

export interface LoadCounts {
  /** Starts answered with a task or a run's handle. */
  started: number;
  completed: number;
  /** Tasks that ended other than completed, by status (failed, cancelled, …). */
  ended: Record<string, number>;
  /** Starts refused, by reason (data.reason of the JSON-RPC error, HTTP status, network error). */
  refused: Record<string, number>;
  /** Starts answered `start_unconfirmed`: their run was followed by its id, not counted lost. */
  unconfirmed: number;
  /** Tasks started (or followed) that did not settle before the deadline. */
  lost: number;
  /** Every error answer, starts and polls, by reason or HTTP status. */
  errors: Record<string, number>;
  polls: number;
}

export interface LoadResult extends LoadCounts {
  seconds: number;
  peakRssMb: number;
  startRssMb: number;
}

export function emptyCounts(): LoadCounts {
  return { started: 0, completed: 0, ended: {}, refused: {}, unconfirmed: 0, lost: 0, errors: {}, polls: 0 };
}

export function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** data.reason of an error answer, if it names one. */
export function reasonOf(answer: RpcAnswer): string | undefined {
  const reason = (answer.error?.data as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : undefined;
}

/**
 * What an answer is, when it is an error: `HTTP <status>` unless 200, then data.reason (or the
 * JSON-RPC code, or `tool error` for a tool result marked isError). Undefined for a good answer.
 */
export function errorLabel(answer: RpcAnswer): string | undefined {
  const http = answer.httpStatus === 200 ? undefined : `HTTP ${answer.httpStatus}`;
  const why = answer.error
    ? (reasonOf(answer) ?? `code ${answer.error.code}`)
    : answer.result?.isError === true
      ? 'tool error'
      : undefined;
  if (!http && !why) return undefined;
  return [http, why].filter(Boolean).join(' ');
}

/** An answer that never came: the request itself failed (connection refused or reset, …). */
export function networkLabel(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return `network error${typeof cause === 'string' ? ` ${cause}` : ''}`;
}

/** Reasons whose answers, even one, fail the load run. */
const FAILING = ['temporal_unavailable', 'internal', 'network error'];

/** What fails the run: lost tasks, tasks ended other than completed, 5xx, temporal_unavailable, … */
export function loadProblems(r: LoadCounts): string[] {
  const problems: string[] = [];
  if (r.lost > 0) problems.push(`${r.lost} lost`);
  for (const [status, n] of Object.entries(r.ended)) problems.push(`${n} ended ${status}`);
  for (const [label, n] of Object.entries(r.errors)) {
    if (/^HTTP 5/.test(label) || FAILING.some((reason) => label.includes(reason))) {
      problems.push(`${n} × ${label}`);
    }
  }
  return problems;
}

const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([key, n]) => `\`${key}\` ${n}`)
    .join(', ') || 'none';

const total = (counts: Record<string, number>) => Object.values(counts).reduce((s, n) => s + n, 0);

export interface LoadSettings {
  tasks: number;
  clients: number;
  difficulty: number;
  blocks: number;
  pollIntervalMs: number;
}

export function renderLoad(options: LoadSettings, r: LoadResult): string {
  const problems = loadProblems(r);
  return [
    `Load: ${options.tasks} start_mining tasks (difficulty ${options.difficulty}, ${options.blocks} blocks) from ` +
      `${options.clients} concurrent clients, polled every ${options.pollIntervalMs} ms. Every outcome is`,
    'counted: a refused start or an error answer does not stop the run; `start_unconfirmed` starts are',
    'followed by the id they name.',
    '',
    '| tasks | started | completed | ended otherwise | refused at start | lost | start_unconfirmed, followed | polls | seconds | gateway RSS start → peak |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| ${options.tasks} | ${r.started} | ${r.completed} | ${total(r.ended)} | ${total(r.refused)} | ${r.lost} | ` +
      `${r.unconfirmed} | ${r.polls} | ${r.seconds.toFixed(1)} | ${r.startRssMb.toFixed(0)} → ${r.peakRssMb.toFixed(0)} MB |`,
    '',
    `Refused at start, by reason: ${listed(r.refused)}.`,
    `Ended other than completed: ${listed(r.ended)}.`,
    `Error answers (starts and polls), by reason or HTTP status: ${listed(r.errors)}.`,
    '',
    problems.length === 0
      ? 'Verdict: ok (nothing lost, no 5xx, no `temporal_unavailable`).'
      : `Verdict: **failed**: ${problems.join('; ')}.`,
  ].join('\n');
}
