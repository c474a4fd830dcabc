// POST /mcp: MCP over Streamable HTTP, stateless. Every request gets a fresh server from the
// factory; both protocol eras (2026-07-28 and the 2025 stateless fallback) share it.
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyPluginAsync } from 'fastify';
import { withRequestLog } from './logging.ts';
import { createMcpServer, type McpServerDeps } from './mcp-server.ts';
import { authInfoFor, callerFrom, principalOf } from './principal.ts';

export interface McpRouteOptions extends McpServerDeps {
  onError?: (error: Error) => void;
}

export const mcpRoute: FastifyPluginAsync<McpRouteOptions> = async (app, options) => {
  const handler = createMcpHandler(({ authInfo }) => createMcpServer(options, callerFrom(authInfo)), {
    onerror: options.onError,
  });
  const node = toNodeHandler(handler);
  app.addHook('onClose', async () => handler.close());
  app.all('/mcp', async (request, reply) => {
    reply.hijack();
    const auth = authInfoFor(principalOf(request.raw));
    await withRequestLog(request, reply, () =>
      node(Object.assign(request.raw, { auth }), reply.raw, request.body),
    );
  });
};
