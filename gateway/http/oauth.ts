// The gateway as an OAuth 2.1 resource server (the MCP authorization spec): a bearer token that is
// not a static one is checked as a JWT access token of the configured issuer, for this resource,
// with the scopes the gateway requires (each tool's own scopes are checked with every other
// caller's, mcp/rights.ts).
// Refusals carry the RFC 6750 challenge (built by the MCP SDK) that points clients at the RFC 9728
// metadata this module also serves, so they can find the authorization server.
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type OAuthProtectedResourceMetadata,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { FastifyPluginAsync } from 'fastify';
import {
  authorizationServerUnavailable,
  type ErrorBody,
  insufficientScope,
  unauthorized,
} from '../mcp/errors.ts';
import { AuthorizationServerUnavailable } from './authorization-server.ts';
import { JwtAccessTokenVerifier } from './jwt-verifier.ts';
import type { OAuthSettings } from './oauth-settings.ts';

/** Who a request is from. `scopes` is absent for a static token: it may use every tool. */
export interface Identity {
  principal: string;
  scopes?: readonly string[];
}

/** An HTTP answer refusing a request: status, headers, JSON-RPC error body. */
export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

const REALM = 'mcp';

/** While the authorization server is unreachable, clients are told to come back after this long. */
const RETRY_AFTER_SECONDS = 5;

const quoted = (value: string) => `"${value.replace(/[\\"]/g, '\\$&')}"`;

export class OAuthResourceServer {
  /** Where the RFC 9728 document is: the resource URI with the well-known path inserted. */
  readonly metadataUrl: string;

  constructor(
    readonly settings: OAuthSettings,
    readonly verifier = new JwtAccessTokenVerifier(settings),
  ) {
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(settings.audience));
  }

  /**
   * The RFC 9728 document. `resource` is the audience exactly as configured: clients send it back
   * verbatim as the RFC 8707 resource indicator, and tokens must name it exactly.
   */
  metadata(scopesSupported: readonly string[]): OAuthProtectedResourceMetadata {
    return {
      resource: this.settings.audience,
      authorization_servers: [this.settings.issuer],
      ...(scopesSupported.length > 0 ? { scopes_supported: [...scopesSupported] } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'Temporal MCP gateway',
    };
  }

  /** The token's identity, or the refusal to answer with. */
  async authenticate(token: string): Promise<Identity | Refusal> {
    try {
      const info = await verifyBearerToken(`Bearer ${token}`, {
        verifier: this.verifier,
        requiredScopes: this.settings.requiredScopes,
        expectedResource: new URL(this.settings.audience),
        resourceMetadataUrl: this.metadataUrl,
      });
      return { principal: info.extra?.principal as string, scopes: info.scopes };
    } catch (err) {
      if (err instanceof AuthorizationServerUnavailable) {
        return {
          status: 503,
          headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
          body: authorizationServerUnavailable(err.message),
        };
      }
      if (err instanceof OAuthError && err.code === OAuthErrorCode.InsufficientScope) {
        return this.insufficientScope(
          this.settings.requiredScopes,
          'the token lacks a scope this gateway requires',
        );
      }
      if (err instanceof OAuthError) return this.invalidToken(err.message);
      throw err;
    }
  }

  /** 401 for a request with no token: where to get one, and no error code (RFC 6750 §3.1). */
  missingToken(): Refusal {
    const scope = this.settings.requiredScopes.join(' ');
    const challenge =
      `Bearer realm=${quoted(REALM)}, resource_metadata=${quoted(this.metadataUrl)}` +
      (scope ? `, scope=${quoted(scope)}` : '');
    return {
      status: 401,
      headers: { 'www-authenticate': challenge },
      body: unauthorized('a bearer token is required'),
    };
  }

  /** 401 `invalid_token`. */
  invalidToken(description: string): Refusal {
    const error = new OAuthError(OAuthErrorCode.InvalidToken, description);
    return {
      ...this.challenge(error, this.settings.requiredScopes),
      body: unauthorized(description),
    };
  }

  /** 403 `insufficient_scope`, naming every scope the request needs. */
  insufficientScope(scopes: readonly string[], description: string, id: unknown = null): Refusal {
    const error = new OAuthError(OAuthErrorCode.InsufficientScope, description);
    return {
      ...this.challenge(error, scopes),
      body: insufficientScope(id, description, scopes),
    };
  }

  /** The SDK's challenge for `error`, with this gateway's realm in front. */
  private challenge(error: OAuthError, scopes: readonly string[]): Pick<Refusal, 'status' | 'headers'> {
    const response = bearerAuthChallengeResponse(error, {
      requiredScopes: [...scopes],
      resourceMetadataUrl: this.metadataUrl,
    });
    const sdkChallenge = response.headers.get('www-authenticate') ?? 'Bearer';
    return {
      status: response.status,
      headers: { 'www-authenticate': sdkChallenge.replace(/^Bearer /, `Bearer realm=${quoted(REALM)}, `) },
    };
  }
}

export function isRefusal(outcome: Identity | Refusal): outcome is Refusal {
  return 'status' in outcome;
}

export interface ProtectedResourceOptions {
  oauth: OAuthResourceServer;
  scopesSupported: readonly string[];
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * GET /.well-known/oauth-protected-resource (and its path-suffixed form for /mcp): the RFC 9728
 * metadata. Public, cacheable, readable from browser-based clients (CORS).
 */
export const protectedResourceRoutes: FastifyPluginAsync<ProtectedResourceOptions> = async (
  app,
  { oauth, scopesSupported },
) => {
  const document = oauth.metadata(scopesSupported);
  // The bare form, the form for this server's /mcp, and the one the resource URI itself implies
  // (the same unless a proxy serves the gateway under another path).
  const paths = new Set([WELL_KNOWN, `${WELL_KNOWN}/mcp`, new URL(oauth.metadataUrl).pathname]);
  for (const path of paths) {
    app.get(path, async (_request, reply) =>
      reply
        .header('access-control-allow-origin', '*')
        .header('cache-control', 'public, max-age=3600')
        .send(document),
    );
    app.options(path, async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
        .header('access-control-allow-headers', '*')
        .send(),
    );
  }
};
