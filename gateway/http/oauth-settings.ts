// OAuth 2.1 resource-server settings from the environment: which authorization server issues the
// access tokens the gateway accepts (MCP_OAUTH_ISSUER), for which resource (MCP_OAUTH_AUDIENCE),
// with which scopes, and how a token names its principal. Unset issuer and audience: no OAuth.
import { integerSetting as integer } from '../../common/settings.ts';
import { SCOPE_TOKEN } from '../mcp/catalog.ts';
import { isLoopback } from './loopback.ts';

export interface OAuthSettings {
  /** The authorization server's issuer identifier, exactly as its tokens and metadata carry it. */
  issuer: string;
  /** This gateway's resource URI (the MCP endpoint's URL): the audience every token must name. */
  audience: string;
  /** Scopes every token must carry, for any request. */
  requiredScopes: string[];
  /** The claim whose value is the caller's principal (`sub` by default). */
  principalClaim: string;
  /** How far `exp` and `nbf` may be off from this machine's clock. */
  clockSkewMs: number;
  /** Deadline of each request to the authorization server (discovery document, key set). */
  httpTimeoutMs: number;
  /** Least time between two fetches of the key set, the one an unknown `kid` triggers included. */
  jwksCooldownMs: number;
}

export const OAUTH_DEFAULTS = {
  principalClaim: 'sub',
  clockSkewMs: 30_000,
  httpTimeoutMs: 5_000,
  jwksCooldownMs: 30_000,
} as const;

/** An http(s) URL, https unless on a loopback host; `what` names the setting in errors. */
function serverUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${what} must be an absolute URL, got "${value}"`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new Error(`${what} must be an https URL (plain http only on a loopback host), got "${value}"`);
  }
  if (url.hash || url.search) throw new Error(`${what} must have no query or fragment, got "${value}"`);
  return url;
}

/** Space- or comma-separated scope tokens. */
export function parseScopes(text: string | undefined, what: string): string[] {
  const scopes = [...new Set((text ?? '').split(/[\s,]+/).filter(Boolean))];
  for (const scope of scopes) {
    if (!SCOPE_TOKEN.test(scope)) throw new Error(`${what}: "${scope}" is not a valid OAuth scope`);
  }
  return scopes;
}

/** The OAuth settings, or undefined when MCP_OAUTH_ISSUER and MCP_OAUTH_AUDIENCE are both unset. */
export function oauthSettingsFromEnv(env: NodeJS.ProcessEnv): OAuthSettings | undefined {
  const issuer = env.MCP_OAUTH_ISSUER?.trim();
  const audience = env.MCP_OAUTH_AUDIENCE?.trim();
  if (!issuer && !audience) {
    const stray = Object.keys(env).find((name) => name.startsWith('MCP_OAUTH_') && env[name]?.trim());
    if (stray) throw new Error(`${stray} is set but MCP_OAUTH_ISSUER and MCP_OAUTH_AUDIENCE are not`);
    return undefined;
  }
  if (!issuer) throw new Error('MCP_OAUTH_AUDIENCE is set: MCP_OAUTH_ISSUER must be set too');
  if (!audience)
    throw new Error(
      "MCP_OAUTH_ISSUER is set: MCP_OAUTH_AUDIENCE (the gateway's resource URI) must be set too",
    );
  serverUrl(issuer, 'MCP_OAUTH_ISSUER');
  serverUrl(audience, 'MCP_OAUTH_AUDIENCE');
  const principalClaim = env.MCP_OAUTH_PRINCIPAL_CLAIM?.trim() || OAUTH_DEFAULTS.principalClaim;
  if (!/^[A-Za-z0-9_:./-]{1,100}$/.test(principalClaim)) {
    throw new Error(`MCP_OAUTH_PRINCIPAL_CLAIM must be a claim name, got "${principalClaim}"`);
  }
  return {
    issuer,
    audience,
    requiredScopes: parseScopes(env.MCP_OAUTH_REQUIRED_SCOPES, 'MCP_OAUTH_REQUIRED_SCOPES'),
    principalClaim,
    clockSkewMs: integer(env, 'MCP_OAUTH_CLOCK_SKEW_MS', OAUTH_DEFAULTS.clockSkewMs, 0, 300_000),
    httpTimeoutMs: integer(env, 'MCP_OAUTH_HTTP_TIMEOUT_MS', OAUTH_DEFAULTS.httpTimeoutMs, 100, 60_000),
    jwksCooldownMs: integer(env, 'MCP_OAUTH_JWKS_COOLDOWN_MS', OAUTH_DEFAULTS.jwksCooldownMs, 0, 3_600_000),
  };
}
