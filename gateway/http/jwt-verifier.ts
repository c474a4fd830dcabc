// JWT access tokens from one authorization server, checked with `jose`: the issuer's discovery
// document names its key set (jwks_uri); keys are cached and fetched again when a token names a key
// not seen yet (rotation without a restart), at most once per cooldown. Only asymmetric signatures
// are accepted. An authorization server that cannot be reached is AuthorizationServerUnavailable
// within the HTTP deadline, never a hang, and is not asked again for a short while. A token once
// verified is remembered for a minute at most (never past its expiry): a client sends the same token
// on every request, and the signature check is then paid about once a minute per token. `jose` loads
// with the first use, so a gateway without OAuth never carries it.
import { createHash } from 'node:crypto';
import {
  type AuthInfo,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import type * as Jose from 'jose';
import type { JWTPayload } from 'jose';
import {
  AuthorizationServerUnavailable,
  discoveryUrls,
  failureReason,
  parsedUrl,
} from './authorization-server.ts';
import { isLoopback } from './loopback.ts';
import { type OAuthSettings, oauthPrincipal } from './oauth-settings.ts';

type JoseErrors = typeof Jose.errors;

let jose: Promise<typeof Jose> | undefined;
const loadJose = () => {
  jose ??= import('jose');
  return jose;
};

/** RSA, RSA-PSS, ECDSA and EdDSA signatures; never `none` nor an HMAC (HS*). */
const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** A principal from a token: visible ASCII but `"` and `\`, at most 255 characters. */
const OAUTH_PRINCIPAL = /^[\x21\x23-\x5b\x5d-\x7e]{1,255}$/;

/** How long fetched keys are trusted before they are fetched again (also when the fetch fails). */
const KEYS_MAX_AGE_MS = 10 * 60_000;

/** After a failed request to the authorization server, how long before it is asked again (at most). */
const FAILURE_BACKOFF_MS = 5_000;

/** How long a verified token is remembered (never past its expiry), and how many at most. */
const REMEMBER = { ms: 60_000, tokens: 10_000 };

/** Verified tokens by their SHA-256, each until it must be checked again. */
class VerifiedTokens {
  private readonly entries = new Map<string, { info: Omit<AuthInfo, 'token'>; until: number }>();

  get(key: string): Omit<AuthInfo, 'token'> | undefined {
    const entry = this.entries.get(key);
    if (entry && Date.now() < entry.until) return entry.info;
    if (entry) this.entries.delete(key);
    return undefined;
  }

  set(key: string, info: Omit<AuthInfo, 'token'>): void {
    // The oldest entry goes first (a Map keeps insertion order).
    if (this.entries.size >= REMEMBER.tokens) this.entries.delete(this.entries.keys().next().value as string);
    const until = Math.min(Date.now() + REMEMBER.ms, (info.expiresAt ?? 0) * 1000);
    this.entries.set(key, { info, until });
  }
}

/** The scopes a token grants: `scope` (space-separated), or `scp` (a list or a string). */
export function tokenScopes(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  const scopes = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return scopes.filter((scope): scope is string => typeof scope === 'string' && scope !== '');
}

/** A jose verification failure → why the token is refused (`invalid_token`). */
function refusal(errors: JoseErrors, err: InstanceType<JoseErrors['JOSEError']>, issuer: string): OAuthError {
  const invalid = (description: string) => new OAuthError(OAuthErrorCode.InvalidToken, description);
  if (err instanceof errors.JWTExpired) return invalid('the token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return invalid('the token is not valid yet (nbf)');
    if (err.claim === 'iss') return invalid(`the token was not issued by ${issuer}`);
    if (err.claim === 'aud') return invalid('the token was not issued for this resource (aud)');
    if (err.claim === 'typ')
      return invalid('the token is not a JWT access token (its header typ is not at+jwt, RFC 9068)');
    return invalid(`the token's "${err.claim}" claim is not acceptable: ${err.reason}`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return invalid('the token is not signed with an accepted algorithm (asymmetric signatures only)');
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return invalid("the token's signature is not valid");
  if (err instanceof errors.JWKSNoMatchingKey)
    return invalid("the token's signing key (kid) is not one the authorization server publishes");
  if (err instanceof errors.JWKSMultipleMatchingKeys)
    return invalid('the token names no key (kid) and several keys could have signed it');
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid)
    return invalid('the token is not a well-formed JWT');
  return invalid(`the token is not valid (${err.code})`);
}

type KeySet = ReturnType<typeof Jose.createRemoteJWKSet>;

export class JwtAccessTokenVerifier implements OAuthTokenVerifier {
  private keys: Promise<KeySet> | undefined;
  private readonly verified = new VerifiedTokens();
  private lastFailure: AuthorizationServerUnavailable | undefined;
  private retryAt = 0;
  private readonly failureBackoffMs: number;

  constructor(
    private readonly settings: OAuthSettings,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.failureBackoffMs = Math.min(FAILURE_BACKOFF_MS, settings.jwksCooldownMs);
  }

  /**
   * The token's AuthInfo: `extra.principal` is the principal claim's value; `expiresAt` is the
   * last second this gateway accepts it (`exp` plus the allowed clock skew). Throws an OAuthError
   * (`invalid_token`) for a token that is not good, AuthorizationServerUnavailable when it could
   * not be checked.
   */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const key = createHash('sha256').update(token).digest('base64');
    const remembered = this.verified.get(key);
    if (remembered) return { ...remembered, token };
    const info = await this.verify(token);
    const { token: _token, ...rest } = info;
    this.verified.set(key, rest);
    return info;
  }

  private async verify(token: string): Promise<AuthInfo> {
    const { issuer, audience, clockSkewMs, principalClaim } = this.settings;
    const [{ jwtVerify, errors }, keys] = await Promise.all([loadJose(), this.keySet()]);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms: ACCEPTED_ALGORITHMS,
        // RFC 9068: an access token says so in its header; an ID token or any other JWT the issuer
        // signs for this audience is not one (jose compares case-insensitively, `application/` optional).
        typ: 'at+jwt',
        clockTolerance: clockSkewMs / 1000,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw this.classify(errors, err);
    }
    const subject = payload[principalClaim];
    if (typeof subject !== 'string' || !OAUTH_PRINCIPAL.test(subject)) {
      throw new OAuthError(
        OAuthErrorCode.InvalidToken,
        subject === undefined
          ? `the token has no "${principalClaim}" claim`
          : `the token's "${principalClaim}" claim is not a usable principal (visible ASCII but " and \\, at most 255 characters)`,
      );
    }
    const clientId = payload.client_id ?? payload.azp;
    return {
      token,
      clientId: typeof clientId === 'string' ? clientId : '',
      scopes: tokenScopes(payload),
      expiresAt: (payload.exp as number) + clockSkewMs / 1000,
      resource: new URL(audience),
      extra: { principal: oauthPrincipal(this.settings, subject) },
    };
  }

  /** Reads the discovery document and the keys ahead of the first request. */
  async warmUp(): Promise<void> {
    const keys = await this.keySet();
    if (!keys.fresh) {
      try {
        await keys.reload();
      } catch (err) {
        throw this.classify((await loadJose()).errors, err);
      }
    }
  }

  /** The remote key set, once the discovery document has named it. */
  private keySet(): Promise<KeySet> {
    if (this.keys) return this.keys;
    this.throwWhileBackingOff();
    const keys = Promise.all([loadJose(), this.discover()]).then(
      ([{ createRemoteJWKSet, customFetch }, jwksUri]) =>
        createRemoteJWKSet(jwksUri, {
          timeoutDuration: this.settings.httpTimeoutMs,
          cooldownDuration: this.settings.jwksCooldownMs,
          cacheMaxAge: KEYS_MAX_AGE_MS,
          [customFetch]: this.fetchKeys,
        }),
    );
    this.keys = keys;
    keys.catch((err) => {
      this.keys = undefined;
      this.failed(err);
    });
    return keys;
  }

  private async discover(): Promise<URL> {
    const { issuer, httpTimeoutMs } = this.settings;
    const tried: string[] = [];
    for (const url of discoveryUrls(issuer)) {
      let document: { issuer?: unknown; jwks_uri?: unknown };
      try {
        const response = await this.fetchImpl(url, {
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(httpTimeoutMs),
        });
        if (response.status !== 200) {
          await response.body?.cancel();
          tried.push(`${url.pathname} (HTTP ${response.status})`);
          continue;
        }
        document = (await response.json()) as typeof document;
      } catch (err) {
        throw new AuthorizationServerUnavailable(
          `the discovery document ${url} could not be read: ${failureReason(err, httpTimeoutMs)}`,
        );
      }
      if (document?.issuer !== issuer) {
        throw new AuthorizationServerUnavailable(
          `${url} names the issuer ${JSON.stringify(document?.issuer)}; MCP_OAUTH_ISSUER must be exactly that`,
        );
      }
      const jwksUri = typeof document.jwks_uri === 'string' ? parsedUrl(document.jwks_uri) : undefined;
      if (!jwksUri || !(jwksUri.protocol === 'https:' || isLoopback(jwksUri.hostname))) {
        throw new AuthorizationServerUnavailable(`${url} names no usable https jwks_uri`);
      }
      return jwksUri;
    }
    throw new AuthorizationServerUnavailable(
      `no discovery document for ${issuer} (tried ${tried.join(', ')})`,
    );
  }

  /** jose's fetch of the key set: refused at once while backing off, failures remembered. */
  private readonly fetchKeys = async (url: string, init: RequestInit): Promise<Response> => {
    this.throwWhileBackingOff();
    try {
      const response = await this.fetchImpl(url, init);
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new AuthorizationServerUnavailable(`the key set ${url} answered HTTP ${response.status}`);
      }
      return response;
    } catch (err) {
      throw this.failed(
        err instanceof AuthorizationServerUnavailable
          ? err
          : new AuthorizationServerUnavailable(
              `the key set ${url} could not be fetched: ${failureReason(err, this.settings.httpTimeoutMs)}`,
            ),
      );
    }
  };

  private classify(errors: JoseErrors, err: unknown): unknown {
    if (err instanceof AuthorizationServerUnavailable) return err;
    if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) {
      return this.failed(
        new AuthorizationServerUnavailable(
          `the key set could not be read: ${err instanceof errors.JWKSTimeout ? failureReason(err, this.settings.httpTimeoutMs) : 'not a JSON Web Key Set'}`,
        ),
      );
    }
    if (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC') {
      // jose's own words for a key set it could not parse.
      return this.failed(new AuthorizationServerUnavailable(`the key set could not be read: ${err.message}`));
    }
    if (err instanceof errors.JOSEError) return refusal(errors, err, this.settings.issuer);
    return err;
  }

  private failed(err: unknown): unknown {
    if (err instanceof AuthorizationServerUnavailable) {
      this.lastFailure = err;
      this.retryAt = Date.now() + this.failureBackoffMs;
    }
    return err;
  }

  private throwWhileBackingOff(): void {
    if (this.lastFailure && Date.now() < this.retryAt) throw this.lastFailure;
  }
}
