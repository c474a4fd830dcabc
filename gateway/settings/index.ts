// The gateway's settings, each read once from the environment by the schema of its area: where to
// listen (listen.ts), who may call (auth.ts, oauth.ts), how long a call waits (budgets.ts), how
// often clients poll (polling.ts), timeouts and caps (limits.ts), payload encryption (codec.ts),
// large outputs (artifacts.ts), the tools served (catalog.ts), tracing (tracing.ts). Temporal's own
// settings (address, namespace, task queue, TLS) come from temporalEnv(). A bad value stops the
// start with one line naming the variable and its rule.
import { booleanSetting, parseSettings } from '../../common/settings.ts';
import { type TemporalEnv, temporalEnv } from '../../common/temporal-env.ts';
import { type OAuthSettings, oauthSettingsFromEnv } from '../http/oauth-settings.ts';
import type { CatalogTool } from '../mcp/catalog.ts';
import { loadCatalog } from '../mcp/catalog-file.ts';
import type { BackendOptions } from '../temporal/backend.ts';
import { type ArtifactSettings, artifactsFromEnv } from './artifacts.ts';
import { type AuthSettings, authSchema } from './auth.ts';
import { type BudgetSettings, budgetsFromEnv } from './budgets.ts';
import { toolsFileFromEnv } from './catalog.ts';
import { type CodecSettings, codecSettingsFromEnv } from './codec.ts';
import { type LimitSettings, limitsFromEnv } from './limits.ts';
import { assertSafeBind, type ListenSettings, listenFromEnv } from './listen.ts';
import { type PollingSettings, pollingFromEnv } from './polling.ts';
import { type TraceSettings, traceFromEnv } from './tracing.ts';

export { budgetWarnings } from './budgets.ts';

export interface GatewaySettings
  extends ListenSettings,
    AuthSettings,
    BudgetSettings,
    PollingSettings,
    LimitSettings,
    CodecSettings,
    TraceSettings {
  /** OAuth access tokens from an identity provider, beside the static tokens. */
  oauth?: OAuthSettings;
  /** The artifact store workers write large outputs to, and the largest one resources/read serves. */
  artifacts: ArtifactSettings;
  temporal: TemporalEnv;
  /** The catalog file (MCP_TOOLS_FILE), or undefined for the built-in catalog. */
  toolsFile?: string;
  /** The tools served: the catalog file's, or the built-in catalog's. */
  tools: CatalogTool[];
  /**
   * Tools with secret arguments whose workflow input goes to Temporal in clear (no payload codec),
   * accepted by MCP_ALLOW_PLAINTEXT_SECRETS=true: said in the start log.
   */
  plaintextSecrets?: string[];
}

/**
 * Throws (naming the variable) on a bad value, and refuses a non-loopback host without
 * authentication. Async: a catalog entry may name a hooks module to load.
 */
export async function loadSettings(env: NodeJS.ProcessEnv = process.env): Promise<GatewaySettings> {
  const listen = listenFromEnv(env);
  const oauth = oauthSettingsFromEnv(env);
  const auth = parseSettings(authSchema(listen.host, oauth !== undefined), env);
  assertSafeBind(listen.host, auth.authTokens, oauth !== undefined);
  const budgets = budgetsFromEnv(env);
  const polling = pollingFromEnv(env);
  const limits = limitsFromEnv(env);
  const artifacts = artifactsFromEnv(env);
  const temporal = temporalEnv(env);
  const codec = codecSettingsFromEnv(env, temporal.namespace);
  const trace = traceFromEnv(env);
  const toolsFile = toolsFileFromEnv(env);
  const catalogDefaults = { taskQueue: temporal.taskQueue, waitBudgetMs: budgets.waitBudgetMs };
  const tools = await loadCatalog(toolsFile, catalogDefaults, env);
  const plaintextSecrets = codec.codec
    ? []
    : secretsInClear(tools, booleanSetting(env, 'MCP_ALLOW_PLAINTEXT_SECRETS'));
  return {
    ...listen,
    ...budgets,
    ...polling,
    ...limits,
    ...auth,
    ...(oauth ? { oauth } : {}),
    artifacts,
    temporal,
    ...codec,
    ...(toolsFile ? { toolsFile } : {}),
    tools,
    ...(plaintextSecrets.length > 0 ? { plaintextSecrets } : {}),
    ...trace,
  };
}

/**
 * Without a payload codec a secret argument (writeOnly, at any depth) reaches Temporal history in clear in the
 * workflow input: the gateway does not start unless MCP_ALLOW_PLAINTEXT_SECRETS=true says so.
 * Returns the tools so accepted, as `tool (argument, …)`.
 */
export function secretsInClear(tools: readonly CatalogTool[], allowed: boolean): string[] {
  const named = tools
    .filter((tool) => tool.secrets !== undefined)
    .map((tool) => `${tool.name} (${tool.secrets?.paths.join(', ')})`);
  if (named.length === 0 || allowed) return named;
  throw new Error(
    `the catalog marks secret (writeOnly) arguments of ${named.join('; ')}, but payloads are not encrypted: ` +
      'the workflow input would carry them in clear in Temporal history. Set MCP_CODEC_KEYS (or ' +
      'MCP_CODEC_KEYS_FILE) to encrypt payloads, or MCP_ALLOW_PLAINTEXT_SECRETS=true to accept them in clear',
  );
}

/** The backend options the settings imply. */
export function backendOptions(settings: GatewaySettings, serverSecret: Buffer): BackendOptions {
  return {
    namespace: settings.temporal.namespace,
    callTimeoutMs: settings.temporalTimeoutMs,
    queryTimeoutMs: settings.queryTimeoutMs,
    serverSecret,
    maxRunningTasks: settings.maxRunningTasks,
    stuckRunGraceMs: settings.stuckRunGraceMs,
    maxStartsPerSecond: settings.maxStartsPerSecond,
    maxWaitsPerPrincipal: settings.maxWaitsPerPrincipal,
    fleetTaskQueue: `${settings.fleet ?? settings.temporal.taskQueue}-gateways`,
    fairnessWeights: settings.fairnessWeights,
  };
}
