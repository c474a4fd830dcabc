// How often clients are told to poll (MCP_POLL_*): the steady interval, and how the advice follows
// the run (gateway/mcp/poll-pacing.ts). The pacing's defaults and bounds scale with the steady
// interval, so MCP_POLL_INTERVAL_MS alone keeps its meaning; fast = steady = input = max with no
// jitter gives a fixed interval.
import * as z from 'zod/v4';
import { integer, parseSettings } from '../../common/settings.ts';
import type { PollPacing } from '../mcp/poll-pacing.ts';
import { DEFAULTS } from './defaults.ts';

export interface PollingSettings {
  /** The steady poll interval (MCP_POLL_INTERVAL_MS): the gateway's own watch of a pushed task. */
  pollIntervalMs: number;
  /** How the interval advised to clients (pollIntervalMs / poll_after_seconds) follows the run. */
  pollPacing: PollPacing;
  /** Polls of one task closer together than this are refused (429); 0: no poll rate limit. */
  pollMinIntervalMs: number;
}

const steady = z.object({
  MCP_POLL_INTERVAL_MS: integer('MCP_POLL_INTERVAL_MS', DEFAULTS.pollIntervalMs, 100, 10 * 60_000),
});

/** The longest advice: at least the steady interval. */
const ceiling = (intervalMs: number) =>
  z.object({
    MCP_POLL_MAX_INTERVAL_MS: integer(
      'MCP_POLL_MAX_INTERVAL_MS',
      Math.max(DEFAULTS.pollMaxIntervalMs, intervalMs),
      intervalMs,
      24 * 60 * 60_000,
    ),
  });

/** The rest of the pacing, within the steady interval and the ceiling. */
const pacing = (intervalMs: number, maxIntervalMs: number) =>
  z.object({
    MCP_POLL_FAST_INTERVAL_MS: integer(
      'MCP_POLL_FAST_INTERVAL_MS',
      Math.min(DEFAULTS.pollFastIntervalMs, intervalMs),
      100,
      intervalMs,
    ),
    MCP_POLL_INPUT_INTERVAL_MS: integer(
      'MCP_POLL_INPUT_INTERVAL_MS',
      Math.min(maxIntervalMs, Math.max(DEFAULTS.pollInputIntervalMs, intervalMs)),
      intervalMs,
      maxIntervalMs,
    ),
    // At most the steady interval; every advice is at least this, so a client that follows the
    // advice is never refused by the poll limiter.
    MCP_POLL_MIN_INTERVAL_MS: integer('MCP_POLL_MIN_INTERVAL_MS', DEFAULTS.pollMinIntervalMs, 0, intervalMs),
    MCP_POLL_JITTER_PERCENT: integer('MCP_POLL_JITTER_PERCENT', DEFAULTS.pollJitterPercent, 0, 50),
  });

export function pollingFromEnv(env: NodeJS.ProcessEnv): PollingSettings {
  const intervalMs = parseSettings(steady, env).MCP_POLL_INTERVAL_MS;
  const maxIntervalMs = parseSettings(ceiling(intervalMs), env).MCP_POLL_MAX_INTERVAL_MS;
  const rest = parseSettings(pacing(intervalMs, maxIntervalMs), env);
  const pollPacing: PollPacing = {
    intervalMs,
    fastIntervalMs: rest.MCP_POLL_FAST_INTERVAL_MS,
    inputIntervalMs: rest.MCP_POLL_INPUT_INTERVAL_MS,
    maxIntervalMs,
    minIntervalMs: rest.MCP_POLL_MIN_INTERVAL_MS,
    jitter: rest.MCP_POLL_JITTER_PERCENT / 100,
  };
  return { pollIntervalMs: intervalMs, pollPacing, pollMinIntervalMs: pollPacing.minIntervalMs };
}
