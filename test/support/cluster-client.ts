// What a client sees of the cluster while something breaks: a start/poll client that retries what
// fails (with the same idempotency key, so a retried start never makes a second job), and a
// watcher that polls one task every quarter second and records every answer and every failure.
import { setTimeout as delay } from 'node:timers/promises';
import { retryUntil } from '../../common/poll.ts';
import { structured } from './mcp-clients.ts';
import { PLAIN_CLIENT, rpc } from './mcp-http.ts';

export interface MiningView {
  status: string;
  workflowId: string;
  blocksDone: number;
  hashes: number;
  result?: { blocks: Array<{ index: number; nonce: number; attempt: number }> };
}

/** One attempt at a start/poll tool call: the view, or why it failed (HTTP status, JSON-RPC error, network). */
export async function plainCall(
  url: URL,
  name: string,
  args: Record<string, unknown>,
): Promise<{ ok: true; view: MiningView } | { ok: false; error: string }> {
  try {
    const answer = await rpc(url, 'tools/call', { name, arguments: args }, PLAIN_CLIENT);
    if (answer.error)
      return {
        ok: false,
        error: `HTTP ${answer.httpStatus} JSON-RPC ${answer.error.code} ${answer.error.message}`,
      };
    if (!answer.result) return { ok: false, error: `HTTP ${answer.httpStatus} without a result` };
    const content = structured(answer.result);
    const progress = (content.progress ?? {}) as { blocks_done?: number; hashes_tried?: number };
    const result = content.result as MiningView['result'];
    return {
      ok: true,
      view: {
        status: String(content.status),
        workflowId: String(content.workflow_id),
        blocksDone: result ? result.blocks.length : (progress.blocks_done ?? 0),
        hashes: progress.hashes_tried ?? 0,
        ...(result ? { result } : {}),
      },
    };
  } catch (err) {
    // Not JSON: an error page of the proxy's own (no gateway to send the request to).
    if (err instanceof SyntaxError) return { ok: false, error: 'an HTML error page from the proxy' };
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { ok: false, error: `network: ${cause ?? (err as Error).message}` };
  }
}

/** Kinds of failure, with counts, for the report. */
export function tally(errors: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const error of errors) {
    const kind = error.replace(/mine-[\w-]+/g, 'mine-…').slice(0, 160);
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

export interface Watch {
  /** Resolves with the report once the task has ended (or the deadline passed). */
  done: Promise<WatchReport>;
  /** Marks the moment of the fault: recovery is measured from here. */
  markFault(): number;
  /** The latest good view. */
  latest(): MiningView | undefined;
}

export interface WatchReport {
  final?: MiningView;
  polls: number;
  failedPolls: number;
  errors: Record<string, number>;
  /** Fault → first answer that shows more progress than the last one before the fault. */
  recoveryMs?: number;
  /** The longest stretch without a good answer, after the fault. */
  longestGapMs: number;
  /** Fault → first good answer of any kind. */
  firstAnswerMs?: number;
}

/** Polls `get_mining_result` through `url` every `intervalMs` until the task ends. */
export function watchTask(url: URL, workflowId: string, timeoutMs: number, intervalMs = 250): Watch {
  let faultAt: number | undefined;
  let before: MiningView | undefined;
  let latest: MiningView | undefined;
  const errors: string[] = [];
  let polls = 0;
  let recoveryMs: number | undefined;
  let firstAnswerMs: number | undefined;
  let lastGood = Date.now();
  let longestGapMs = 0;
  const done = (async (): Promise<WatchReport> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      polls++;
      const answer = await plainCall(url, 'get_mining_result', { workflow_id: workflowId });
      const now = Date.now();
      if (answer.ok) {
        latest = answer.view;
        if (faultAt !== undefined) {
          longestGapMs = Math.max(longestGapMs, now - Math.max(lastGood, faultAt));
          firstAnswerMs ??= now - faultAt;
          const moved =
            answer.view.status !== 'running' ||
            answer.view.blocksDone > (before?.blocksDone ?? 0) ||
            answer.view.hashes > (before?.hashes ?? 0);
          if (recoveryMs === undefined && moved) recoveryMs = now - faultAt;
        }
        lastGood = now;
        if (answer.view.status !== 'running') break;
      } else if (faultAt !== undefined) {
        errors.push(answer.error);
      }
      await delay(intervalMs);
    }
    return {
      final: latest,
      polls,
      failedPolls: errors.length,
      errors: tally(errors),
      recoveryMs,
      longestGapMs,
      firstAnswerMs,
    };
  })();
  return {
    done,
    markFault() {
      before = latest;
      faultAt = Date.now();
      return faultAt;
    },
    latest: () => latest,
  };
}

/** Calls until an answer comes, retrying failures after `backoffMs`; every failure is recorded. */
export async function callWithRetry(
  url: URL,
  name: string,
  args: Record<string, unknown>,
  errors: string[],
  timeoutMs = 120_000,
  backoffMs = 200,
  /** Called once an answer comes after failures, with the time since the first failure. */
  onRecovered?: (ms: number) => void,
): Promise<MiningView> {
  let firstFailure: number | undefined;
  return retryUntil(
    async () => {
      const answer = await plainCall(url, name, args);
      if (answer.ok) {
        if (firstFailure !== undefined) onRecovered?.(Date.now() - firstFailure);
        return answer.view;
      }
      firstFailure ??= Date.now();
      errors.push(answer.error);
      throw new Error(`${name} kept failing: ${answer.error}`);
    },
    { timeoutMs, intervalMs: backoffMs },
  );
}
