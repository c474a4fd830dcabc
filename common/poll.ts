// Waiting for something that is not there yet, the same way in every process: try, wait, try again
// until a deadline. `pollUntil` waits for a value ("is it ready?"), `retryUntil` for a call that
// stops failing ("can I connect?").
import { setTimeout as delay } from 'node:timers/promises';

export interface PollOptions {
  /** Gives up once the next attempt would start later than this, counted from the call. */
  timeoutMs: number;
  /** The wait after an attempt that did not succeed (default 100 ms). */
  intervalMs?: number;
  /** With a value above intervalMs, the wait doubles after every attempt up to this (backoff). */
  maxIntervalMs?: number;
  /**
   * Stops at once with the signal's reason, even during a wait: e.g. aborted when the process that
   * is being waited for exits.
   */
  signal?: AbortSignal;
  /** The error thrown at the deadline, given the last attempt's error if it threw. */
  timeoutError?: (lastError: unknown) => Error;
}

/**
 * Calls `probe` until it returns a value other than undefined, and resolves with that value. A
 * probe that throws counts as "not yet" (its error is kept for the timeout error). At the deadline,
 * throws `timeoutError(lastError)`; without one, the last error, or else a plain timeout.
 */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  options: PollOptions,
): Promise<T> {
  const { timeoutMs, intervalMs = 100, signal } = options;
  const maxIntervalMs = Math.max(intervalMs, options.maxIntervalMs ?? intervalMs);
  const deadline = Date.now() + timeoutMs;
  let wait = intervalMs;
  let lastError: unknown;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    signal?.throwIfAborted();
    if (Date.now() + wait > deadline) {
      if (options.timeoutError) throw options.timeoutError(lastError);
      throw lastError ?? new Error(`not done within ${timeoutMs} ms`);
    }
    await delay(wait, undefined, signal ? { signal } : undefined).catch((err) => {
      throw signal?.aborted ? signal.reason : err;
    });
    wait = Math.min(wait * 2, maxIntervalMs);
  }
}

/** Calls `attempt` until it resolves, and resolves with its value; at the deadline, throws its last error. */
export async function retryUntil<T>(attempt: () => Promise<T>, options: PollOptions): Promise<T> {
  const { value } = await pollUntil(async () => ({ value: await attempt() }), options);
  return value;
}
