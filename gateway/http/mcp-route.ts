// POST /mcp: MCP over Streamable HTTP, stateless. Every request gets a fresh server bound to its
// caller; both protocol eras (2026-07-28 and the 2025 stateless fallback) share it.
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyPluginAsync } from 'fastify';
import type { McpServers } from '../mcp/server.ts';
import { listensForTasks, type TaskSubscriptions } from '../mcp/task-subscriptions.ts';
import { type AuthTokens, authenticatedIdentity, bearerAuth } from './auth.ts';
import { mcpRequestErrorHandler, PollRateLimiter, pollRateLimit } from './limits.ts';
import { withRequestLog } from './logging.ts';
import { serveMcpRequest, writeResponse } from './mcp-response.ts';
import type { OAuthResourceServer } from './oauth.ts';
import { authInfoFor, callerFrom, principalOf } from './principal.ts';
import { missingStandardHeaders } from './standard-headers.ts';
import { type ToolScopes, toolScopeCheck } from './tool-scopes.ts';

export interface McpRouteOptions {
  servers: McpServers;
  /** Pushed task status: subscriptions/listen asking for taskIds (the SDK serves every other listen). */
  subscriptions: TaskSubscriptions;
  /** Which tool calls are polls (the poll rate limit applies to them and to tasks/get). */
  isPollTool: (name: string) => boolean;
  onError?: (error: Error) => void;
  /** principal → bearer token; absent or empty: no authentication (loopback only). */
  authTokens?: AuthTokens;
  /** OAuth access tokens of an identity provider, beside the static tokens; absent: none. */
  oauth?: OAuthResourceServer;
  /** Scopes per catalog tool (checked for OAuth tokens only). */
  toolScopes?: ToolScopes;
  /** Largest request body (413 above it); Fastify's default when absent. */
  bodyLimitBytes?: number;
  /** Polls of one task closer together than this are refused with 429; 0 or absent: off. */
  pollMinIntervalMs?: number;
}

export const mcpRoute: FastifyPluginAsync<McpRouteOptions> = async (app, options) => {
  const handler = createMcpHandler(({ authInfo, era }) => options.servers.create(callerFrom(authInfo), era), {
    onerror: options.onError,
  });
  app.addHook('onClose', async () => handler.close());
  // Hooks of this plugin apply to /mcp only: /healthz and /readyz stay open for probes.
  const tokens = options.authTokens ?? new Map<string, string>();
  if (tokens.size > 0 || options.oauth) app.addHook('onRequest', bearerAuth(tokens, options.oauth));
  if (options.oauth && options.toolScopes && !options.toolScopes.empty) {
    app.addHook('preHandler', toolScopeCheck(options.toolScopes, options.oauth, authenticatedIdentity));
  }
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  app.setErrorHandler(mcpRequestErrorHandler(bodyLimit));
  if (options.pollMinIntervalMs) {
    const limiter = new PollRateLimiter(options.pollMinIntervalMs);
    app.addHook(
      'preHandler',
      pollRateLimit(limiter, (request) => principalOf(request.raw), options.isPollTool),
    );
  }
  app.all('/mcp', { bodyLimit }, async (request, reply) => {
    Object.assign(request.raw.headers, missingStandardHeaders(request.raw.headers, request.body));
    reply.hijack();
    const auth = authInfoFor(principalOf(request.raw));
    const body = request.body;
    await withRequestLog(request, reply, () =>
      listensForTasks(body)
        ? writeResponse(
            reply.raw,
            (signal) => options.subscriptions.serve(body, callerFrom(auth), signal),
            body,
            options.onError,
          )
        : serveMcpRequest(handler, request.raw, reply.raw, body, auth, options.onError),
    );
  });
};
