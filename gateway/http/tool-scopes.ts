// Per-tool OAuth scopes: a catalog entry's `scopes` are needed (besides the gateway's required ones)
// for tools/call of the tool and its companions, and for tasks/* on its tasks. Checked on the parsed
// body before the MCP layer sees it, with the SDK's requireScopes; a token without them is 403
// `insufficient_scope` naming every scope the request needs. Static tokens may use every tool.
import type { IncomingMessage } from 'node:http';
import { type JSONRPCRequest, requireScopes, type ScopeChallengeHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CatalogTool } from '../mcp/catalog.ts';
import { taskIdPrefix } from '../temporal/task-id.ts';
import { sendRefusal } from './auth.ts';
import type { Identity, OAuthResourceServer } from './oauth.ts';

const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

export class ToolScopes {
  private readonly byName = new Map<string, ScopeChallengeHandler>();
  private readonly byIdPrefix = new Map<string, ScopeChallengeHandler>();
  /** Every scope the gateway knows of (required ones first): RFC 9728 `scopes_supported`. */
  readonly supported: string[];

  constructor(tools: readonly CatalogTool[], requiredScopes: readonly string[]) {
    const supported = new Set(requiredScopes);
    for (const tool of tools) {
      if (!tool.scopes?.length) continue;
      for (const scope of tool.scopes) supported.add(scope);
      const needed = [...new Set([...requiredScopes, ...tool.scopes])] as [string, ...string[]];
      const handler = requireScopes(...needed);
      const { result, cancel, respond } = tool.companions;
      for (const name of [tool.name, result, cancel, respond]) if (name) this.byName.set(name, handler);
      this.byIdPrefix.set(tool.idPrefix, handler);
    }
    this.supported = [...supported];
  }

  get empty(): boolean {
    return this.byName.size === 0;
  }

  /** The scopes `message` needs that `identity` lacks (all the request needs), or undefined. */
  async missing(message: unknown, identity: Identity): Promise<readonly string[] | undefined> {
    if (!identity.scopes || !message || typeof message !== 'object') return undefined;
    const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
    let handler: ScopeChallengeHandler | undefined;
    if (method === 'tools/call' && typeof params?.name === 'string') handler = this.byName.get(params.name);
    else if (typeof method === 'string' && TASK_METHODS.has(method) && typeof params?.taskId === 'string') {
      const prefix = taskIdPrefix(params.taskId);
      handler = prefix === undefined ? undefined : this.byIdPrefix.get(prefix);
    }
    const challenge = await handler?.({
      request: message as JSONRPCRequest,
      authInfo: { token: '', clientId: identity.principal, scopes: [...identity.scopes] },
    });
    return challenge?.scopes;
  }
}

/** preHandler hook for /mcp: 403 `insufficient_scope` for a call the token's scopes do not cover. */
export function toolScopeCheck(
  scopes: ToolScopes,
  oauth: OAuthResourceServer,
  identityOf: (request: IncomingMessage) => Identity | undefined,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = identityOf(request.raw);
    if (!identity?.scopes) return;
    const messages = Array.isArray(request.body) ? request.body : [request.body];
    for (const message of messages) {
      const needed = await scopes.missing(message, identity);
      if (!needed) continue;
      const { method, params } = message as { method: string; params: { name?: string; taskId?: string } };
      const what = method === 'tools/call' ? `the tool ${params.name}` : `${method} on ${params.taskId}`;
      return sendRefusal(
        reply,
        oauth.insufficientScope(
          needed,
          `the token lacks a scope ${what} needs`,
          (message as { id?: unknown }).id,
        ),
      );
    }
  };
}
