// notifications/progress while a start waits on its run, for a request that asked for progress
// (its progress token): a first report at once, then the run's progress whenever it has grown.
import type { ServerContext } from '@modelcontextprotocol/server';
import type { ProgressReport } from './presentation-hooks.ts';

const PROGRESS_INTERVAL_MS = 1_000;

/** What to report: the request's token, the first report, and how to read the run's progress. */
export interface ProgressReporting {
  token: string | number;
  first: ProgressReport;
  read: () => Promise<ProgressReport | undefined>;
  intervalMs?: number;
}

/**
 * Runs `work` while sending notifications/progress (the response is an SSE stream then): `first`
 * at once, then what `read` returns whenever its progress is above the last one sent (the spec
 * wants it to grow with every notification). Reading stops when `work` settles; a failed read or
 * notification is skipped, never fatal.
 */
export async function withProgress<T>(
  ctx: ServerContext,
  reporting: ProgressReporting,
  work: Promise<T>,
): Promise<T> {
  const { token, first, read, intervalMs = PROGRESS_INTERVAL_MS } = reporting;
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
