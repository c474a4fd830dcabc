// A hard bound on a Temporal call. gRPC deadlines bound each attempt, but with Temporal down the
// client's connection retries can outlast them by a second or two; this rejects at the deadline
// itself, with an error that reads as "Temporal unreachable or too slow", and aborts the call so
// nothing is left running behind the answer.
export class TemporalDeadlineError extends Error {
  readonly code = 4; // gRPC DEADLINE_EXCEEDED
  constructor(timeoutMs: number) {
    super(`Deadline exceeded: Temporal did not answer within ${timeoutMs} ms`);
    this.name = 'TemporalDeadlineError';
  }
}

export function withHardDeadline<T>(deadline: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const remaining = Math.max(0, deadline - Date.now());
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new TemporalDeadlineError(remaining);
      reject(error);
      abort.abort(error);
    }, remaining);
  });
  const call = run(abort.signal);
  call.catch(() => {}); // its failure after the bound is the abort above: nobody to tell
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}
