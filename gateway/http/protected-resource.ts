// GET /.well-known/oauth-protected-resource (and its path-suffixed form for /mcp): the RFC 9728
// metadata that tells an MCP client which authorization server issues tokens for this gateway and
// which scopes there are. Public, cacheable, readable from browser-based clients (CORS).
import type { FastifyPluginAsync } from 'fastify';
import type { OAuthResourceServer } from './oauth.ts';

export interface ProtectedResourceOptions {
  oauth: OAuthResourceServer;
  scopesSupported: readonly string[];
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

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
