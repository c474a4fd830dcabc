// Gateway settings from the environment: where to listen, how long a call may wait, how tasks are
// advertised. Temporal's own settings (address, namespace, task queue, TLS) come from temporalEnv().
import { type TemporalEnv, temporalEnv } from '../lib/temporal-env.ts';
import { type AuthTokens, assertSafeBind, authTokensFromEnv } from './http/auth.ts';
import { type OAuthSettings, oauthSettingsFromEnv } from './http/oauth-settings.ts';
import { type CatalogTool, loadCatalogFile } from './mcp/catalog.ts';
import type { ApprovalPolicy } from './mcp/mining/approval-policy.ts';
import { miningTool } from './mcp/mining/tool.ts';
import type { SubscriptionLimits } from './mcp/task-subscriptions.ts';

export interface GatewayConfig {
  host: string;
  port: number;
  /** Longest a tools/call waits for the workflow before answering with a handle. */
  waitBudgetMs: number;
  /** Poll interval suggested to clients (pollIntervalMs / poll_after_seconds). */
  pollIntervalMs: number;
  /** ttlMs advertised on tasks: how long a finished task stays retrievable. */
  taskTtlMs: number;
  /** Longest a poll waits for a worker to answer the progress query. */
  queryTimeoutMs: number;
  /** Deadline of every other Temporal call (start, describe, signal, cancel). */
  temporalTimeoutMs: number;
  /** Longest /readyz waits for Temporal before answering 503. */
  readyTimeoutMs: number;
  /** When a mining run must pause for a person's approval before publishing, and for how long. */
  approval: ApprovalPolicy;
  /** principal → bearer token (MCP_AUTH_TOKENS / MCP_AUTH_TOKENS_FILE); empty: no auth, loopback only. */
  authTokens: AuthTokens;
  /** OAuth access tokens from an identity provider (MCP_OAUTH_*), beside the static tokens. */
  oauth?: OAuthSettings;
  /** Running tasks one principal may have at once; 0: no cap. */
  maxRunningTasks: number;
  /** Polls of one task closer together than this are refused (429); 0: no poll rate limit. */
  pollMinIntervalMs: number;
  /** Largest request body accepted on /mcp (413 above it). */
  bodyLimitBytes: number;
  /** Bounds of pushed task status (subscriptions/listen with taskIds). */
  listen: SubscriptionLimits;
  temporal: TemporalEnv;
  /** The catalog file (MCP_TOOLS_FILE), or undefined for the built-in catalog. */
  toolsFile?: string;
  /** The tools served: the catalog file's, or the built-in mining tool. */
  tools: CatalogTool[];
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 3000,
  waitBudgetMs: 20_000,
  pollIntervalMs: 2_000,
  taskTtlMs: 24 * 60 * 60 * 1000,
  queryTimeoutMs: 1_500,
  temporalTimeoutMs: 4_000,
  readyTimeoutMs: 2_000,
  approvalTimeoutMs: 60 * 60 * 1000,
  maxRunningTasks: 100,
  pollMinIntervalMs: 0,
  bodyLimitBytes: 64 * 1024,
  listenMaxTasks: 100,
  listenMaxStreams: 1_000,
  listenKeepAliveMs: 15_000,
} as const;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** Throws (naming the variable) on a bad value, and refuses a non-loopback host without authentication. */
export function gatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const host = env.MCP_HOST?.trim() || DEFAULTS.host;
  const authTokens = authTokensFromEnv(env);
  const oauth = oauthSettingsFromEnv(env);
  assertSafeBind(host, authTokens, oauth !== undefined);
  const pollIntervalMs = integer(env, 'MCP_POLL_INTERVAL_MS', DEFAULTS.pollIntervalMs, 100, 10 * 60_000);
  const waitBudgetMs = integer(env, 'MCP_WAIT_BUDGET_MS', DEFAULTS.waitBudgetMs, 0, 10 * 60_000);
  const temporal = temporalEnv(env);
  const approval: ApprovalPolicy = {
    // 0 (the default) asks for approval only when the caller sets require_approval.
    thresholdHashes: integer(env, 'MCP_APPROVAL_THRESHOLD_HASHES', 0, 0, Number.MAX_SAFE_INTEGER),
    timeoutMs: integer(
      env,
      'MCP_APPROVAL_TIMEOUT_MS',
      DEFAULTS.approvalTimeoutMs,
      1_000,
      7 * 24 * 60 * 60 * 1000,
    ),
  };
  const toolsFile = env.MCP_TOOLS_FILE?.trim() || undefined;
  const catalogDefaults = { taskQueue: temporal.taskQueue, waitBudgetMs };
  return {
    host,
    port: integer(env, 'MCP_PORT', DEFAULTS.port, 0, 65_535),
    waitBudgetMs,
    pollIntervalMs,
    taskTtlMs: integer(env, 'MCP_TASK_TTL_MS', DEFAULTS.taskTtlMs, 60_000, 365 * 24 * 60 * 60 * 1000),
    queryTimeoutMs: integer(env, 'MCP_QUERY_TIMEOUT_MS', DEFAULTS.queryTimeoutMs, 100, 60_000),
    temporalTimeoutMs: integer(env, 'MCP_TEMPORAL_TIMEOUT_MS', DEFAULTS.temporalTimeoutMs, 500, 120_000),
    readyTimeoutMs: integer(env, 'MCP_READY_TIMEOUT_MS', DEFAULTS.readyTimeoutMs, 100, 60_000),
    authTokens,
    ...(oauth ? { oauth } : {}),
    maxRunningTasks: integer(env, 'MCP_MAX_RUNNING_TASKS', DEFAULTS.maxRunningTasks, 0, 1_000_000),
    // At most the advertised interval: a client that follows pollIntervalMs is never refused.
    pollMinIntervalMs: integer(
      env,
      'MCP_POLL_MIN_INTERVAL_MS',
      DEFAULTS.pollMinIntervalMs,
      0,
      pollIntervalMs,
    ),
    bodyLimitBytes: integer(env, 'MCP_MAX_BODY_BYTES', DEFAULTS.bodyLimitBytes, 1024, 16 * 1024 * 1024),
    listen: {
      maxTasksPerStream: integer(env, 'MCP_LISTEN_MAX_TASKS', DEFAULTS.listenMaxTasks, 1, 10_000),
      maxStreams: integer(env, 'MCP_LISTEN_MAX_STREAMS', DEFAULTS.listenMaxStreams, 1, 100_000),
      keepAliveMs: DEFAULTS.listenKeepAliveMs,
    },
    approval,
    temporal,
    ...(toolsFile ? { toolsFile } : {}),
    tools: toolsFile ? loadCatalogFile(toolsFile, catalogDefaults) : [miningTool(catalogDefaults, approval)],
  };
}
