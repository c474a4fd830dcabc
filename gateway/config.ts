// Gateway settings from the environment: where to listen, how long a call may wait, how tasks are
// advertised, who may call, which tools are served. Temporal's own settings (address, namespace,
// task queue, TLS) come from temporalEnv(). A bad value stops the start naming the variable.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { artifactStoreSettings } from '../common/artifact-store.ts';
import { codecFromEnv } from '../common/codec-settings.ts';
import { integerSetting as integer, nameValueEntries } from '../common/settings.ts';
import { type TemporalEnv, temporalEnv } from '../common/temporal-env.ts';
import type { AppSettings } from './http/app.ts';
import { isLoopback } from './http/loopback.ts';
import type { AuthTokens } from './http/mcp-endpoint.ts';
import { oauthSettingsFromEnv, PRINCIPAL_PATTERN, parseScopes } from './http/oauth-settings.ts';
import type { CatalogTool } from './mcp/catalog.ts';
import { loadCatalog } from './mcp/catalog-file.ts';
import type { PollPacing } from './mcp/poll-pacing.ts';
import type { BackendOptions } from './temporal/backend.ts';

export interface GatewayConfig extends AppSettings {
  port: number;
  /** Longest a tools/call waits for the workflow before answering with a handle. */
  waitBudgetMs: number;
  /** Longest a poll waits for a worker to answer the progress query. */
  queryTimeoutMs: number;
  /** Deadline of every other Temporal call (start, describe, signal, cancel). */
  temporalTimeoutMs: number;
  /** Running tasks one principal may have at once; 0: no cap. */
  maxRunningTasks: number;
  temporal: TemporalEnv;
  /** The catalog file (MCP_TOOLS_FILE), or undefined for the built-in catalog. */
  toolsFile?: string;
  /** The tools served: the catalog file's, or the built-in mining tool. */
  tools: CatalogTool[];
  /** Where the first start's generated token is kept (MCP_FIRST_START_TOKEN_FILE), when it is in use. */
  firstStartTokenFile?: string;
}

// ---- payload encryption and the codec server ------------------------------------------------------

function booleanSetting(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name]?.trim().toLowerCase() ?? '';
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new Error(`${name} must be "true" or "false", got "${env[name]}"`);
}

/** A browser origin as the Origin header carries it: scheme, host and port, nothing else. */
function origin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`MCP_CODEC_CORS_ORIGINS: "${text}" is not an origin (e.g. http://localhost:8233)`);
  }
  if (!/^https?:$/.test(url.protocol) || url.origin !== text.replace(/\/$/, '')) {
    throw new Error(`MCP_CODEC_CORS_ORIGINS: "${text}" is not an origin (scheme://host[:port], no path)`);
  }
  return url.origin;
}

/**
 * The codec (MCP_CODEC_KEYS, common/codec-settings.ts) and, with MCP_CODEC_SERVER=true, the codec
 * server for the Web UI: MCP_CODEC_CORS_ORIGINS (the Web UI's origins), MCP_CODEC_PRINCIPALS (who
 * may use it, when callers authenticate; every principal when unset).
 */
export function codecSettingsFromEnv(
  env: NodeJS.ProcessEnv,
  namespace: string,
): Pick<AppSettings, 'codec' | 'codecServer'> {
  const codec = codecFromEnv(env);
  if (!booleanSetting(env, 'MCP_CODEC_SERVER')) return codec ? { codec } : {};
  if (!codec)
    throw new Error('MCP_CODEC_SERVER=true needs the codec keys (MCP_CODEC_KEYS or MCP_CODEC_KEYS_FILE)');
  const list = (name: string) =>
    (env[name] ?? '')
      .split(/[\s,]+/)
      .map((item) => item.trim())
      .filter(Boolean);
  const principals = list('MCP_CODEC_PRINCIPALS');
  for (const principal of principals) {
    if (!PRINCIPAL_PATTERN.test(principal))
      throw new Error(`MCP_CODEC_PRINCIPALS: "${principal}" is not a valid principal`);
  }
  return {
    codec,
    codecServer: {
      namespace,
      corsOrigins: list('MCP_CODEC_CORS_ORIGINS').map(origin),
      ...(principals.length ? { principals } : {}),
    },
  };
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
  maxRunningTasks: 100,
  pollMinIntervalMs: 0,
  pollFastIntervalMs: 500,
  pollInputIntervalMs: 30_000,
  pollMaxIntervalMs: 60_000,
  pollJitterPercent: 20,
  bodyLimitBytes: 64 * 1024,
  requestTimeoutMs: 30_000,
  maxConnections: 10_000,
  listenMaxTasks: 100,
  listenMaxStreams: 1_000,
  listenMaxStreamsPerPrincipal: 20,
  listenKeepAliveMs: 15_000,
  inputStateTtlSeconds: 60 * 60,
  artifactReadMaxBytes: 32 * 1024 * 1024,
} as const;

// ---- who may call -------------------------------------------------------------------------------------

export { PRINCIPAL_PATTERN };
export const MIN_TOKEN_LENGTH = 16;

/**
 * `alice:token1,bob:token2` (commas, whitespace or newlines between pairs; `#` starts a comment
 * line in a file). `source` names where the text came from, for error messages.
 */
export function parseAuthTokens(text: string, source: string): Map<string, string> {
  const tokens = new Map<string, string>();
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/).filter((line) => !line.trim().startsWith('#'));
  for (const pair of lines.join(',').split(/[\s,]+/)) {
    if (pair === '') continue;
    const colon = pair.indexOf(':');
    const principal = colon > 0 ? pair.slice(0, colon) : '';
    const token = colon > 0 ? pair.slice(colon + 1) : '';
    if (!PRINCIPAL_PATTERN.test(principal)) {
      throw new Error(
        `${source}: expected principal:token pairs; "${principal || pair.slice(0, 12)}" is not a valid principal ` +
          '(letters, digits, . _ @ -, at most 64 characters)',
      );
    }
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new Error(
        `${source}: the token of "${principal}" is shorter than ${MIN_TOKEN_LENGTH} characters`,
      );
    }
    if (tokens.has(principal)) throw new Error(`${source}: principal "${principal}" is listed twice`);
    if (seen.has(token)) throw new Error(`${source}: two principals share a token`);
    tokens.set(principal, token);
    seen.add(token);
  }
  return tokens;
}

/**
 * MCP_AUTH_TOKEN_SCOPES: the OAuth scopes a static principal holds (`ops=mcp:tools echo:run;ci=mcp:tools`),
 * checked like a token's; a static principal not listed holds every scope.
 */
export function staticScopesFromEnv(
  env: NodeJS.ProcessEnv,
  tokens: ReadonlyMap<string, string>,
  oauth: boolean,
): Map<string, string[]> {
  const scopes = new Map<string, string[]>();
  const text = env.MCP_AUTH_TOKEN_SCOPES?.trim();
  if (!text) return scopes;
  if (!oauth) throw new Error('MCP_AUTH_TOKEN_SCOPES is set but OAuth is not (scopes are OAuth scopes)');
  const shape = 'principal=scopes with a principal of MCP_AUTH_TOKENS';
  for (const [principal, list] of nameValueEntries(text, ';', 'MCP_AUTH_TOKEN_SCOPES', shape)) {
    if (!tokens.has(principal))
      throw new Error(`MCP_AUTH_TOKEN_SCOPES: "${principal}=${list}" is not ${shape}`);
    scopes.set(principal, parseScopes(list, `MCP_AUTH_TOKEN_SCOPES (${principal})`));
  }
  return scopes;
}

/**
 * MCP_CLIENT_WAIT_BUDGETS: wait budgets per MCP client, matched on the request's `clientInfo.name`
 * (case-insensitive): `Claude Desktop=200000;mcp-inspector=45000`. A tool's own budget caps them.
 */
export function clientWaitBudgetsFromEnv(env: NodeJS.ProcessEnv): Map<string, number> {
  const budgets = new Map<string, number>();
  const shape = 'client-name=milliseconds (0 to 600000), entries separated by ";"';
  // Names match case-insensitively: lower-cased before the check for one listed twice.
  const text = env.MCP_CLIENT_WAIT_BUDGETS?.toLowerCase();
  for (const [name, value] of nameValueEntries(text, ';', 'MCP_CLIENT_WAIT_BUDGETS', shape)) {
    if (!/^\d+$/.test(value) || Number(value) > 10 * 60_000) {
      throw new Error(`MCP_CLIENT_WAIT_BUDGETS: "${name}=${value}" is not ${shape}`);
    }
    budgets.set(name, Number(value));
  }
  return budgets;
}

/** The timeout many MCP clients give a tool call (the TypeScript SDK's default); proxies often less. */
export const COMMON_CLIENT_TIMEOUT_MS = 60_000;

/**
 * One line for every wait budget at or above the common client timeout: a client that gives up
 * first reports a failure while the run goes on, and its retry starts the work again.
 */
export function budgetWarnings(
  config: Pick<GatewayConfig, 'waitBudgetMs' | 'tools' | 'clientWaitBudgets'>,
): string[] {
  const trap = (what: string, ms: number) =>
    `${what} is ${ms} ms, at or above ${COMMON_CLIENT_TIMEOUT_MS} ms: clients that time out a tool call at ` +
    `${COMMON_CLIENT_TIMEOUT_MS / 1000} s (the MCP TypeScript SDK's default; proxies often 30-60 s) give up before ` +
    'the answer, report a failure while the run goes on, and may start it again; lower it, or give those ' +
    'clients a budget of their own (MCP_CLIENT_WAIT_BUDGETS)';
  const lines: string[] = [];
  if (config.waitBudgetMs >= COMMON_CLIENT_TIMEOUT_MS)
    lines.push(trap('MCP_WAIT_BUDGET_MS', config.waitBudgetMs));
  for (const tool of config.tools) {
    if (tool.waitBudgetMs >= COMMON_CLIENT_TIMEOUT_MS && tool.waitBudgetMs !== config.waitBudgetMs)
      lines.push(trap(`the wait budget of ${tool.name}`, tool.waitBudgetMs));
  }
  for (const [name, ms] of config.clientWaitBudgets ?? []) {
    if (ms >= COMMON_CLIENT_TIMEOUT_MS) lines.push(trap(`the wait budget of client "${name}"`, ms));
  }
  return lines;
}

/** Tokens from MCP_AUTH_TOKENS or the file named by MCP_AUTH_TOKENS_FILE (not both). */
export function authTokensFromEnv(env: NodeJS.ProcessEnv): Map<string, string> {
  const inline = env.MCP_AUTH_TOKENS?.trim();
  const file = env.MCP_AUTH_TOKENS_FILE?.trim();
  if (inline && file) throw new Error('set MCP_AUTH_TOKENS or MCP_AUTH_TOKENS_FILE, not both');
  if (inline) return parseAuthTokens(inline, 'MCP_AUTH_TOKENS');
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`MCP_AUTH_TOKENS_FILE: cannot read ${file}: ${(err as Error).message}`);
    }
    const tokens = parseAuthTokens(text, `MCP_AUTH_TOKENS_FILE (${file})`);
    if (tokens.size === 0) throw new Error(`MCP_AUTH_TOKENS_FILE (${file}) lists no principal:token pairs`);
    return tokens;
  }
  return new Map();
}

export const FIRST_START_PRINCIPAL = 'user';

/**
 * MCP_FIRST_START_TOKEN_FILE, for a gateway that must listen beyond loopback and was given no
 * authentication (the compose stack out of the box): a strong token for the principal "user",
 * generated into that file on the first start and read from it on every later one.
 */
function firstStartTokens(path: string): Map<string, string> {
  try {
    mkdirSync(dirname(path), { recursive: true });
    // 'wx': only the first start writes it; a concurrent replica reads what that one wrote.
    writeFileSync(path, `${FIRST_START_PRINCIPAL}:${randomBytes(32).toString('base64url')}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new Error(`MCP_FIRST_START_TOKEN_FILE: cannot write ${path}: ${(err as Error).message}`);
  }
  return parseAuthTokens(readFileSync(path, 'utf8'), `MCP_FIRST_START_TOKEN_FILE (${path})`);
}

/** Startup check: without tokens or OAuth the gateway may only listen on loopback. */
export function assertSafeBind(host: string, tokens: AuthTokens, oauth = false): void {
  if (tokens.size === 0 && !oauth && !isLoopback(host)) {
    throw new Error(
      `refusing to listen on ${host} without authentication: set MCP_AUTH_TOKENS (principal:token pairs) ` +
        'or MCP_AUTH_TOKENS_FILE, or MCP_OAUTH_ISSUER and MCP_OAUTH_AUDIENCE, or bind to 127.0.0.1',
    );
  }
}

// ---- everything ----------------------------------------------------------------------------------------

/**
 * Throws (naming the variable) on a bad value, and refuses a non-loopback host without
 * authentication. Async: a catalog entry may name a hooks module to load.
 */
export async function gatewayConfig(env: NodeJS.ProcessEnv = process.env): Promise<GatewayConfig> {
  const host = env.MCP_HOST?.trim() || DEFAULTS.host;
  const oauth = oauthSettingsFromEnv(env);
  // The generated token stands in only where nothing else would let the gateway start.
  const firstStartTokenFile =
    !env.MCP_AUTH_TOKENS?.trim() && !env.MCP_AUTH_TOKENS_FILE?.trim() && !oauth && !isLoopback(host)
      ? env.MCP_FIRST_START_TOKEN_FILE?.trim() || undefined
      : undefined;
  const authTokens = firstStartTokenFile ? firstStartTokens(firstStartTokenFile) : authTokensFromEnv(env);
  assertSafeBind(host, authTokens, oauth !== undefined);
  const pollIntervalMs = integer(env, 'MCP_POLL_INTERVAL_MS', DEFAULTS.pollIntervalMs, 100, 10 * 60_000);
  const pollPacing = pollPacingFromEnv(env, pollIntervalMs);
  const waitBudgetMs = integer(env, 'MCP_WAIT_BUDGET_MS', DEFAULTS.waitBudgetMs, 0, 10 * 60_000);
  const temporal = temporalEnv(env);
  const toolsFile = env.MCP_TOOLS_FILE?.trim() || undefined;
  const catalogDefaults = { taskQueue: temporal.taskQueue, waitBudgetMs };
  // Unset: the built-in catalog (the mining entry), found and read like any catalog.
  const tools = await loadCatalog(toolsFile, catalogDefaults, env);
  return {
    host,
    port: integer(env, 'MCP_PORT', DEFAULTS.port, 0, 65_535),
    waitBudgetMs,
    clientWaitBudgets: clientWaitBudgetsFromEnv(env),
    pollIntervalMs,
    taskTtlMs: integer(env, 'MCP_TASK_TTL_MS', DEFAULTS.taskTtlMs, 60_000, 365 * 24 * 60 * 60 * 1000),
    queryTimeoutMs: integer(env, 'MCP_QUERY_TIMEOUT_MS', DEFAULTS.queryTimeoutMs, 100, 60_000),
    temporalTimeoutMs: integer(env, 'MCP_TEMPORAL_TIMEOUT_MS', DEFAULTS.temporalTimeoutMs, 500, 120_000),
    readyTimeoutMs: integer(env, 'MCP_READY_TIMEOUT_MS', DEFAULTS.readyTimeoutMs, 100, 60_000),
    authTokens,
    staticScopes: staticScopesFromEnv(env, authTokens, oauth !== undefined),
    ...(oauth ? { oauth } : {}),
    maxRunningTasks: integer(env, 'MCP_MAX_RUNNING_TASKS', DEFAULTS.maxRunningTasks, 0, 1_000_000),
    pollMinIntervalMs: pollPacing.minIntervalMs,
    pollPacing,
    bodyLimitBytes: integer(env, 'MCP_MAX_BODY_BYTES', DEFAULTS.bodyLimitBytes, 1024, 16 * 1024 * 1024),
    requestTimeoutMs: integer(env, 'MCP_REQUEST_TIMEOUT_MS', DEFAULTS.requestTimeoutMs, 1_000, 600_000),
    maxConnections: integer(env, 'MCP_MAX_CONNECTIONS', DEFAULTS.maxConnections, 1, 1_000_000),
    listen: {
      maxTasksPerStream: integer(env, 'MCP_LISTEN_MAX_TASKS', DEFAULTS.listenMaxTasks, 1, 10_000),
      maxStreams: integer(env, 'MCP_LISTEN_MAX_STREAMS', DEFAULTS.listenMaxStreams, 1, 100_000),
      maxStreamsPerPrincipal: integer(
        env,
        'MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL',
        DEFAULTS.listenMaxStreamsPerPrincipal,
        1,
        100_000,
      ),
      keepAliveMs: DEFAULTS.listenKeepAliveMs,
    },
    // An input_required answer waits for a person: an hour by default to answer and retry.
    inputStateTtlSeconds: integer(
      env,
      'MCP_INPUT_STATE_TTL_SECONDS',
      DEFAULTS.inputStateTtlSeconds,
      10,
      7 * 24 * 60 * 60,
    ),
    artifacts: {
      store: artifactStoreSettings(env),
      // A read holds the bytes about five to six times over (buffer, base64, JSON): docs/artifacts.md.
      readMaxBytes: integer(
        env,
        'MCP_ARTIFACT_READ_MAX_BYTES',
        DEFAULTS.artifactReadMaxBytes,
        1024,
        256 * 1024 * 1024,
      ),
    },
    temporal,
    ...codecSettingsFromEnv(env, temporal.namespace),
    ...(toolsFile ? { toolsFile } : {}),
    tools,
    ...(firstStartTokenFile ? { firstStartTokenFile } : {}),
  };
}

/**
 * How the advised poll interval follows the run (poll-pacing.ts). The defaults scale with the steady
 * interval, so MCP_POLL_INTERVAL_MS alone keeps its meaning; fast = steady = input = max with no
 * jitter gives the old fixed interval.
 */
export function pollPacingFromEnv(env: NodeJS.ProcessEnv, intervalMs: number): PollPacing {
  const maxIntervalMs = integer(
    env,
    'MCP_POLL_MAX_INTERVAL_MS',
    Math.max(DEFAULTS.pollMaxIntervalMs, intervalMs),
    intervalMs,
    24 * 60 * 60_000,
  );
  return {
    intervalMs,
    fastIntervalMs: integer(
      env,
      'MCP_POLL_FAST_INTERVAL_MS',
      Math.min(DEFAULTS.pollFastIntervalMs, intervalMs),
      100,
      intervalMs,
    ),
    inputIntervalMs: integer(
      env,
      'MCP_POLL_INPUT_INTERVAL_MS',
      Math.min(maxIntervalMs, Math.max(DEFAULTS.pollInputIntervalMs, intervalMs)),
      intervalMs,
      maxIntervalMs,
    ),
    maxIntervalMs,
    // At most the steady interval; every advice is at least this, so a client that follows the
    // advice is never refused by the poll limiter.
    minIntervalMs: integer(env, 'MCP_POLL_MIN_INTERVAL_MS', DEFAULTS.pollMinIntervalMs, 0, intervalMs),
    jitter: integer(env, 'MCP_POLL_JITTER_PERCENT', DEFAULTS.pollJitterPercent, 0, 50) / 100,
  };
}

/** The backend options a gateway configuration implies. */
export function backendOptions(config: GatewayConfig, serverSecret: Buffer): BackendOptions {
  return {
    namespace: config.temporal.namespace,
    callTimeoutMs: config.temporalTimeoutMs,
    queryTimeoutMs: config.queryTimeoutMs,
    serverSecret,
    maxRunningTasks: config.maxRunningTasks,
  };
}
