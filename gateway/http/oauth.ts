// The gateway as an OAuth 2.1 resource server (the MCP authorization spec): a bearer token that is
// not a static one is checked as a JWT access token of the configured issuer, for this resource,
// with the scopes the gateway requires, and each catalog tool's own scopes on the calls about it.
// Refusals carry the RFC 6750 challenge (built by the MCP SDK) that points clients at the RFC 9728
// metadata this module also serves, so they can find the authorization server.
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  type JSONRPCRequest,
  OAuthError,
  OAuthErrorCode,
  type OAuthProtectedResourceMetadata,
  requireScopes,
  type ScopeChallengeHandler,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../mcp/catalog.ts';
import {
  authorizationServerUnavailable,
  type ErrorBody,
  insufficientScope,
  unauthorized,
} from '../mcp/errors.ts';
import { toolsTouched } from '../mcp/tool-rights.ts';
import { AuthorizationServerUnavailable } from './authorization-server.ts';
import type { McpMessage } from './body.ts';
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

/**
 * Per-tool OAuth scopes, checked on the parsed body before the MCP layer sees it: every tool a
 * message touches (mcp/tool-rights.ts: a call or a companion, tasks/* of both revisions, a push
 * watch, an artifact read, an input answer) needs its scopes besides the gateway's required ones,
 * with the SDK's requireScopes; a token without them is 403 `insufficient_scope` naming every scope
 * the request needs. A static principal holds every scope unless MCP_AUTH_TOKEN_SCOPES names its own.
 */
export class ToolScopes {
  private readonly byTool = new Map<string, ScopeChallengeHandler>();
  /** Every scope the gateway knows of (required ones first): RFC 9728 `scopes_supported`. */
  readonly supported: string[];

  constructor(
    private readonly catalog: Catalog,
    requiredScopes: readonly string[],
  ) {
    const supported = new Set(requiredScopes);
    for (const tool of catalog.tools) {
      if (!tool.scopes?.length) continue;
      for (const scope of tool.scopes) supported.add(scope);
      const needed = [...new Set([...requiredScopes, ...tool.scopes])] as [string, ...string[]];
      this.byTool.set(tool.name, requireScopes(...needed));
    }
    this.supported = [...supported];
  }

  get empty(): boolean {
    return this.byTool.size === 0;
  }

  /** The scopes `message` needs that `identity` lacks (all the request needs), or undefined. */
  async missing(message: McpMessage, identity: Identity): Promise<readonly string[] | undefined> {
    const { body, envelope } = message;
    if (!identity.scopes || !body || typeof body !== 'object') return undefined;
    for (const tool of toolsTouched(this.catalog, envelope, body)) {
      const challenge = await this.byTool.get(tool.name)?.({
        request: body as JSONRPCRequest,
        authInfo: { token: '', clientId: identity.principal, scopes: [...identity.scopes] },
      });
      if (challenge) return challenge.scopes;
    }
    return undefined;
  }

  /** preHandler hook for /mcp: 403 `insufficient_scope` for a call the token's scopes do not cover. */
  hook(oauth: OAuthResourceServer, send: (reply: FastifyReply, refusal: Refusal) => unknown) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const identity = request.identity;
      if (!identity?.scopes) return;
      for (const message of request.mcpBody.messages) {
        const needed = await this.missing(message, identity);
        if (!needed) continue;
        const { method, params } = message.envelope;
        const what =
          method === undefined
            ? 'the answer to an input request of its task'
            : method === 'tools/call'
              ? `the tool ${params.name}`
              : method === 'subscriptions/listen'
                ? 'subscriptions/listen on the tasks named'
                : `${method} on ${params.taskId ?? params.uri}`;
        return send(
          reply,
          oauth.insufficientScope(needed, `the token lacks a scope ${what} needs`, message.envelope.id),
        );
      }
    };
  }
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
