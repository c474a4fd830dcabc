// notifications/progress while a tools/call waits for its run, for a request that carried a
// progressToken: one at once, then whenever the run's progress grows (read from Temporal every
// interval), until the wait ends. The response is an SSE stream then; without a token, plain JSON.
import type { ServerContext } from '@modelcontextprotocol/server';

export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

export const PROGRESS_INTERVAL_MS = 1_000;

/** The request's progress token, if it asked for progress. */
export function progressToken(ctx: ServerContext): string | number | undefined {
  const token = (ctx.mcpReq._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/**
 * Runs `work` while reporting progress: `first` at once, then what `read` returns whenever its
 * progress is above the last one sent (the spec wants it to grow with every notification).
 * Reading stops when `work` settles; a failed read or notification is skipped, never fatal.
 */
export async function withProgress<T>(
  ctx: ServerContext,
  token: string | number,
  first: ProgressReport,
  read: () => Promise<ProgressReport | undefined>,
  work: Promise<T>,
  intervalMs = PROGRESS_INTERVAL_MS,
): Promise<T> {
  const send = (report: ProgressReport) =>
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, ...report } })
      .catch(() => {});
  let done = false;
  let wake: () => void = () => {};
  const settled = work.finally(() => {
    done = true;
    wake();
  });
  const loop = (async () => {
    let last = first;
    await send(first);
    while (!done) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, intervalMs).unref();
      });
      if (done) break;
      const report = await read().catch(() => undefined);
      if (!done && report && report.progress > last.progress) {
        last = report;
        await send(report);
      }
    }
  })();
  try {
    return await settled;
  } finally {
    await loop;
  }
}
