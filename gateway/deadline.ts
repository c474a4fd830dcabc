// A hard bound on a Temporal call. gRPC deadlines bound each attempt, but with Temporal down the
// client's connection retries can outlast them by a second or two; this rejects at the deadline
// itself, with an error that reads as "Temporal unreachable or too slow".
export class TemporalDeadlineError extends Error {
  readonly code = 4; // gRPC DEADLINE_EXCEEDED
  constructor(timeoutMs: number) {
    super(`Deadline exceeded: Temporal did not answer within ${timeoutMs} ms`);
    this.name = 'TemporalDeadlineError';
  }
}

export function withHardDeadline<T>(deadline: number, run: () => Promise<T>): Promise<T> {
  const remaining = Math.max(0, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TemporalDeadlineError(remaining)), remaining);
  });
  const call = run();
  call.catch(() => {}); // a late failure after the bound has no one to tell
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}
