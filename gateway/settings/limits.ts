// How long the gateway waits on Temporal, how long what it hands out stays valid, and how much one
// principal or stream may hold: timeouts, the running-task cap, pushed status, input state.
import * as z from 'zod/v4';
import { integer, nameValueList, parseSettings, setting, text } from '../../common/settings.ts';
import type { SubscriptionLimits } from '../mcp/method-context.ts';
import { MAX_SLOTS } from '../temporal/task-ids.ts';
import { DEFAULTS } from './defaults.ts';

export interface LimitSettings {
  /** ttlMs advertised on tasks: how long a finished task stays retrievable. */
  taskTtlMs: number;
  /** Longest a poll waits for a worker to answer the progress query. */
  queryTimeoutMs: number;
  /** Deadline of every other Temporal call (start, describe, signal, cancel). */
  temporalTimeoutMs: number;
  /** Longest /readyz waits for Temporal before answering 503. */
  readyTimeoutMs: number;
  /** Running tasks one principal may have at once; 0: no cap. */
  maxRunningTasks: number;
  /** Bounds of pushed task status (subscriptions/listen with taskIds). */
  listen: SubscriptionLimits;
  /** How long an input_required answer's requestState stays valid. */
  inputStateTtlSeconds: number;
  /** How long a run stuck on a size cause is answered failed before a poll ends it; 0: at once. */
  stuckRunGraceMs: number;
  /** Starts per second one principal may make, of the whole fleet; 0: no bound. */
  maxStartsPerSecond: number;
  /** Waits holding a Temporal long poll one principal may have at once, of the whole fleet; 0: no bound. */
  maxWaitsPerPrincipal: number;
  /** Fairness weights per principal (MCP_FAIRNESS_WEIGHTS); a principal not named weighs 1. */
  fairnessWeights: Map<string, number>;
  /** The gateways sharing those bounds (MCP_FLEET); absent: those on the same task queue. */
  fleet?: string;
}

/** Temporal clamps fairness weights to this range. */
const WEIGHTS = { min: 0.001, max: 1000 } as const;

/** MCP_FAIRNESS_WEIGHTS: `alice=2,bob=0.5`, each principal's share of the workers against the default 1. */
function fairnessWeights(raw: string | undefined): Map<string, number> {
  return nameValueList(raw, {
    name: 'MCP_FAIRNESS_WEIGHTS',
    separator: ',',
    shape: `principal=weight (a number from ${WEIGHTS.min} to ${WEIGHTS.max}), entries separated by ","`,
    value: (value) => {
      const weight = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
      return weight >= WEIGHTS.min && weight <= WEIGHTS.max ? weight : undefined;
    },
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;

const limitsSchema = z
  .object({
    MCP_TASK_TTL_MS: integer('MCP_TASK_TTL_MS', DEFAULTS.taskTtlMs, 60_000, 365 * DAY_MS),
    MCP_QUERY_TIMEOUT_MS: integer('MCP_QUERY_TIMEOUT_MS', DEFAULTS.queryTimeoutMs, 100, 60_000),
    MCP_TEMPORAL_TIMEOUT_MS: integer('MCP_TEMPORAL_TIMEOUT_MS', DEFAULTS.temporalTimeoutMs, 500, 120_000),
    MCP_READY_TIMEOUT_MS: integer('MCP_READY_TIMEOUT_MS', DEFAULTS.readyTimeoutMs, 100, 60_000),
    MCP_MAX_RUNNING_TASKS: integer('MCP_MAX_RUNNING_TASKS', DEFAULTS.maxRunningTasks, 0, MAX_SLOTS),
    MCP_LISTEN_MAX_TASKS: integer('MCP_LISTEN_MAX_TASKS', DEFAULTS.listenMaxTasks, 1, 10_000),
    MCP_LISTEN_MAX_STREAMS: integer('MCP_LISTEN_MAX_STREAMS', DEFAULTS.listenMaxStreams, 1, 100_000),
    MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL: integer(
      'MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL',
      DEFAULTS.listenMaxStreamsPerPrincipal,
      1,
      100_000,
    ),
    // An input_required answer waits for a person: an hour by default to answer and retry.
    MCP_INPUT_STATE_TTL_SECONDS: integer(
      'MCP_INPUT_STATE_TTL_SECONDS',
      DEFAULTS.inputStateTtlSeconds,
      10,
      7 * 24 * 60 * 60,
    ),
    // Time for a worker fix to recover a run stuck on a size cause before the gateway ends it.
    MCP_STUCK_RUN_GRACE_MS: integer('MCP_STUCK_RUN_GRACE_MS', DEFAULTS.stuckRunGraceMs, 0, 7 * DAY_MS),
    MCP_MAX_STARTS_PER_SECOND: integer('MCP_MAX_STARTS_PER_SECOND', DEFAULTS.maxStartsPerSecond, 0, 100_000),
    MCP_MAX_WAITS_PER_PRINCIPAL: integer(
      'MCP_MAX_WAITS_PER_PRINCIPAL',
      DEFAULTS.maxWaitsPerPrincipal,
      0,
      1_000_000,
    ),
    MCP_FAIRNESS_WEIGHTS: setting('MCP_FAIRNESS_WEIGHTS', fairnessWeights),
    MCP_FLEET: text('MCP_FLEET'),
  })
  .transform(
    (env): LimitSettings => ({
      taskTtlMs: env.MCP_TASK_TTL_MS,
      queryTimeoutMs: env.MCP_QUERY_TIMEOUT_MS,
      temporalTimeoutMs: env.MCP_TEMPORAL_TIMEOUT_MS,
      readyTimeoutMs: env.MCP_READY_TIMEOUT_MS,
      maxRunningTasks: env.MCP_MAX_RUNNING_TASKS,
      listen: {
        maxTasksPerStream: env.MCP_LISTEN_MAX_TASKS,
        maxStreams: env.MCP_LISTEN_MAX_STREAMS,
        maxStreamsPerPrincipal: env.MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL,
        keepAliveMs: DEFAULTS.listenKeepAliveMs,
      },
      inputStateTtlSeconds: env.MCP_INPUT_STATE_TTL_SECONDS,
      stuckRunGraceMs: env.MCP_STUCK_RUN_GRACE_MS,
      maxStartsPerSecond: env.MCP_MAX_STARTS_PER_SECOND,
      maxWaitsPerPrincipal: env.MCP_MAX_WAITS_PER_PRINCIPAL,
      fairnessWeights: env.MCP_FAIRNESS_WEIGHTS,
      ...(env.MCP_FLEET ? { fleet: env.MCP_FLEET } : {}),
    }),
  );

export function limitsFromEnv(env: NodeJS.ProcessEnv): LimitSettings {
  return parseSettings(limitsSchema, env);
}
