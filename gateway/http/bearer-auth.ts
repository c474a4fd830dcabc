// Who is calling /mcp: a static bearer token is its principal; any other token, with OAuth
// configured, is checked as an access token (oauth.ts); a request without a usable token is refused
// with 401 (403 for a token lacking a scope the gateway requires; 503 when the identity provider
// cannot be asked). The identity found is the request's `identity`; without tokens or OAuth
// (loopback only) there is none, and the MCP layer serves the local principal.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorBody, unauthorized } from '../mcp/errors.ts';
import { type Identity, isRefusal, type OAuthResourceServer, type Refusal } from './oauth.ts';

/** principal → token. Empty: authentication is off (loopback only). */
export type AuthTokens = ReadonlyMap<string, string>;

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The principal whose token `presented` is, or undefined. Every configured token is compared (equal
 * lengths through SHA-256, timingSafeEqual), so the time taken says nothing about which one matched.
 */
export function principalForToken(tokens: AuthTokens, presented: string): string | undefined {
  const presentedDigest = digest(presented);
  let found: string | undefined;
  for (const [principal, token] of tokens) {
    if (timingSafeEqual(digest(token), presentedDigest) && found === undefined) found = principal;
  }
  return found;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request is from, once bearerAuth has found out; absent: authentication is off. */
    identity?: Identity;
  }
}

export function sendJson(
  reply: FastifyReply,
  status: number,
  body: ErrorBody,
  headers: Record<string, string> = {},
) {
  return reply.code(status).headers(headers).header('content-type', 'application/json').send(body);
}

export function sendRefusal(reply: FastifyReply, refusal: Refusal) {
  return sendJson(reply, refusal.status, refusal.body, refusal.headers);
}

function refuse(reply: FastifyReply, error: 'invalid_request' | 'invalid_token', message: string) {
  const challenge =
    error === 'invalid_request'
      ? 'Bearer realm="mcp"'
      : `Bearer realm="mcp", error="invalid_token", error_description="${message}"`;
  return sendJson(reply, 401, unauthorized(message), { 'www-authenticate': challenge });
}

/** How requests authenticate: static tokens (with their scopes), OAuth access tokens, or both. */
export interface Authentication {
  tokens: AuthTokens;
  oauth?: OAuthResourceServer;
  staticScopes?: ReadonlyMap<string, readonly string[]>;
}

/** onRequest hook for /mcp: attaches the caller's identity, or answers the refusal. */
export function bearerAuth({ tokens, oauth, staticScopes = new Map() }: Authentication) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (!header) {
      return oauth
        ? sendRefusal(reply, oauth.missingToken())
        : refuse(reply, 'invalid_request', 'a bearer token is required');
    }
    const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
    const presented = match?.[1];
    const principal = presented && tokens.size > 0 ? principalForToken(tokens, presented) : undefined;
    const scopes = principal ? staticScopes.get(principal) : undefined;
    let identity: Identity | undefined = principal ? { principal, ...(scopes ? { scopes } : {}) } : undefined;
    if (!identity && oauth) {
      if (!presented) return sendRefusal(reply, oauth.invalidToken('expected "Bearer <token>"'));
      const outcome = await oauth.authenticate(presented);
      if (isRefusal(outcome)) return sendRefusal(reply, outcome);
      identity = outcome;
    }
    if (!identity) return refuse(reply, 'invalid_token', 'the bearer token is not valid');
    request.identity = identity;
  };
}
