// Who is calling /mcp when the embedding application authenticates its own callers: its function
// names the caller (a principal, and the scopes its token holds) or nobody. Nobody is refused with
// 401, unless the host's function already answered the request itself (its own refusal).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../mcp/errors.ts';
import { sendJson } from './bearer-auth.ts';
import type { Identity } from './oauth.ts';

/** The host's authentication: the caller of a request, or undefined for none. */
export type HostAuthenticate = (
  request: FastifyRequest,
  reply: FastifyReply,
) => Identity | undefined | Promise<Identity | undefined>;

/** onRequest hook for /mcp: the caller's identity from the host's function, or a refusal. */
export function hostAuth(authenticate: HostAuthenticate) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = await authenticate(request, reply);
    if (reply.sent) return reply;
    if (!identity?.principal) {
      return sendJson(reply, 401, unauthorized('the application did not authenticate the caller'), {
        'www-authenticate': 'Bearer realm="mcp"',
      });
    }
    request.identity = identity;
  };
}
