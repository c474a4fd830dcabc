// OAuth 2.1 resource-server settings from the environment: which authorization server issues the
// access tokens the gateway accepts (MCP_OAUTH_ISSUER), for which resource (MCP_OAUTH_AUDIENCE),
// with which scopes, and how a token names its principal. Unset issuer and audience: no OAuth.
import * as z from 'zod/v4';
import { checked, integer, nameValueList, parseSettings, setting, text } from '../../common/settings.ts';
import { SCOPE_TOKEN } from '../mcp/catalog.ts';
import { isLoopback } from './loopback.ts';

/** A static principal's name: what MCP_AUTH_TOKENS accepts (no ":" or "/", unlike an OAuth principal). */
export const PRINCIPAL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export interface OAuthSettings {
  /** The authorization server's issuer identifier, exactly as its tokens and metadata carry it. */
  issuer: string;
  /** This gateway's resource URI (the MCP endpoint's URL): the audience every token must name. */
  audience: string;
  /** Scopes every token must carry, for any request. */
  requiredScopes: string[];
  /** The claim whose value names the caller (`sub` by default); the principal is qualified by the issuer. */
  principalClaim: string;
  /** Subjects that act as a static principal (MCP_OAUTH_PRINCIPAL_ALIASES), for a move from static tokens. */
  principalAliases: ReadonlyMap<string, string>;
  /** How far `exp` and `nbf` may be off from this machine's clock. */
  clockSkewMs: number;
  /** Deadline of each request to the authorization server (discovery document, key set). */
  httpTimeoutMs: number;
  /** Least time between two fetches of the key set, the one an unknown `kid` triggers included. */
  jwksCooldownMs: number;
}

const OAUTH_DEFAULTS = {
  principalClaim: 'sub',
  clockSkewMs: 30_000,
  httpTimeoutMs: 5_000,
  jwksCooldownMs: 30_000,
} as const;

/**
 * The principal of a token's subject: `<issuer>#<subject>`, which no static principal can equal (a
 * static principal has no ":" or "/"), so a subject named like a static principal is not that
 * principal, unless an alias says so.
 */
export function oauthPrincipal(
  settings: Pick<OAuthSettings, 'issuer' | 'principalAliases'>,
  subject: string,
): string {
  return settings.principalAliases.get(subject) ?? `${settings.issuer}#${subject}`;
}

/** MCP_OAUTH_PRINCIPAL_ALIASES: `subject=principal` pairs, comma-separated; each principal a static one's name. */
function parsePrincipalAliases(text: string | undefined, isPrincipal: (name: string) => boolean) {
  return nameValueList(text, {
    name: 'MCP_OAUTH_PRINCIPAL_ALIASES',
    separator: ',',
    shape: 'subject=principal with a valid principal name',
    value: (principal) => (isPrincipal(principal) ? principal : undefined),
  });
}

/** Space- or comma-separated scope tokens. */
export function parseScopes(text: string | undefined, what: string): string[] {
  const scopes = [...new Set((text ?? '').split(/[\s,]+/).filter(Boolean))];
  for (const scope of scopes) {
    if (!SCOPE_TOKEN.test(scope)) throw new Error(`${what}: "${scope}" is not a valid OAuth scope`);
  }
  return scopes;
}

/** An http(s) URL, https unless on a loopback host, with no query or fragment. */
function serverUrl(name: string) {
  return setting(name, (raw) => {
    const value = raw?.trim() ?? '';
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(`${name} must be an absolute URL, got "${value}"`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
      throw new Error(`${name} must be an https URL (plain http only on a loopback host), got "${value}"`);
    }
    if (url.hash || url.search) throw new Error(`${name} must have no query or fragment, got "${value}"`);
    return value;
  });
}

/** Whether OAuth is on: both of issuer and audience, or neither and no other MCP_OAUTH_* setting. */
const oauthSwitch = z
  .looseObject({ MCP_OAUTH_ISSUER: text('MCP_OAUTH_ISSUER'), MCP_OAUTH_AUDIENCE: text('MCP_OAUTH_AUDIENCE') })
  .transform((env, ctx) =>
    checked(ctx, () => {
      const { MCP_OAUTH_ISSUER: issuer, MCP_OAUTH_AUDIENCE: audience } = env;
      if (!issuer && !audience) {
        const stray = Object.keys(env).find(
          (name) => name.startsWith('MCP_OAUTH_') && typeof env[name] === 'string' && env[name].trim(),
        );
        if (stray) throw new Error(`${stray} is set but MCP_OAUTH_ISSUER and MCP_OAUTH_AUDIENCE are not`);
        return false;
      }
      if (!issuer) throw new Error('MCP_OAUTH_AUDIENCE is set: MCP_OAUTH_ISSUER must be set too');
      if (!audience)
        throw new Error(
          "MCP_OAUTH_ISSUER is set: MCP_OAUTH_AUDIENCE (the gateway's resource URI) must be set too",
        );
      return true;
    }),
  );

/** The OAuth settings, once issuer and audience are both set. */
const oauthSchema = z
  .object({
    MCP_OAUTH_ISSUER: serverUrl('MCP_OAUTH_ISSUER'),
    MCP_OAUTH_AUDIENCE: serverUrl('MCP_OAUTH_AUDIENCE'),
    MCP_OAUTH_PRINCIPAL_CLAIM: setting('MCP_OAUTH_PRINCIPAL_CLAIM', (raw) => {
      const claim = raw?.trim() || OAUTH_DEFAULTS.principalClaim;
      if (!/^[A-Za-z0-9_:./-]{1,100}$/.test(claim))
        throw new Error(`MCP_OAUTH_PRINCIPAL_CLAIM must be a claim name, got "${claim}"`);
      return claim;
    }),
    MCP_OAUTH_REQUIRED_SCOPES: setting('MCP_OAUTH_REQUIRED_SCOPES', (raw) =>
      parseScopes(raw, 'MCP_OAUTH_REQUIRED_SCOPES'),
    ),
    MCP_OAUTH_PRINCIPAL_ALIASES: setting('MCP_OAUTH_PRINCIPAL_ALIASES', (raw) =>
      parsePrincipalAliases(raw, (name) => PRINCIPAL_PATTERN.test(name)),
    ),
    MCP_OAUTH_CLOCK_SKEW_MS: integer('MCP_OAUTH_CLOCK_SKEW_MS', OAUTH_DEFAULTS.clockSkewMs, 0, 300_000),
    MCP_OAUTH_HTTP_TIMEOUT_MS: integer(
      'MCP_OAUTH_HTTP_TIMEOUT_MS',
      OAUTH_DEFAULTS.httpTimeoutMs,
      100,
      60_000,
    ),
    MCP_OAUTH_JWKS_COOLDOWN_MS: integer(
      'MCP_OAUTH_JWKS_COOLDOWN_MS',
      OAUTH_DEFAULTS.jwksCooldownMs,
      0,
      3_600_000,
    ),
  })
  .transform(
    (env): OAuthSettings => ({
      issuer: env.MCP_OAUTH_ISSUER,
      audience: env.MCP_OAUTH_AUDIENCE,
      requiredScopes: env.MCP_OAUTH_REQUIRED_SCOPES,
      principalClaim: env.MCP_OAUTH_PRINCIPAL_CLAIM,
      principalAliases: env.MCP_OAUTH_PRINCIPAL_ALIASES,
      clockSkewMs: env.MCP_OAUTH_CLOCK_SKEW_MS,
      httpTimeoutMs: env.MCP_OAUTH_HTTP_TIMEOUT_MS,
      jwksCooldownMs: env.MCP_OAUTH_JWKS_COOLDOWN_MS,
    }),
  );

/** The OAuth settings, or undefined when MCP_OAUTH_ISSUER and MCP_OAUTH_AUDIENCE are both unset. */
export function oauthSettingsFromEnv(env: NodeJS.ProcessEnv): OAuthSettings | undefined {
  return parseSettings(oauthSwitch, env) ? parseSettings(oauthSchema, env) : undefined;
}
