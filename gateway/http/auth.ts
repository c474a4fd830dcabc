// Bearer-token authentication: each configured principal has a token; a request to /mcp must carry
// one of them (`Authorization: Bearer <token>`) or it is answered 401 with WWW-Authenticate.
// Tokens are compared in constant time. With OAuth configured (oauth.ts), a token that is not a
// static one is checked as an access token of the identity provider instead. Without either, every
// caller is the local anonymous principal, and the gateway refuses to listen anywhere but on loopback.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, UNAUTHORIZED } from '../mcp/json-rpc-errors.ts';
import { isLoopback } from './loopback.ts';
import { type Identity, isRefusal, type OAuthResourceServer, type Refusal } from './oauth.ts';

/** principal → token. Empty: authentication is off (loopback only). */
export type AuthTokens = ReadonlyMap<string, string>;

export const PRINCIPAL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const MIN_TOKEN_LENGTH = 16;

/**
 * `alice:token1,bob:token2` (commas, whitespace or newlines between pairs; `#` starts a comment
 * line in a file). `source` names where the text came from, for error messages.
 */
export function parseAuthTokens(text: string, source: string): Map<string, string> {
  const tokens = new Map<string, string>();
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/).filter((line) => !line.trim().startsWith('#'));
  for (const pair of lines.join(',').split(/[\s,]+/)) {
    if (pair === '') continue;
    const colon = pair.indexOf(':');
    const principal = colon > 0 ? pair.slice(0, colon) : '';
    const token = colon > 0 ? pair.slice(colon + 1) : '';
    if (!PRINCIPAL_PATTERN.test(principal)) {
      throw new Error(
        `${source}: expected principal:token pairs; "${principal || pair.slice(0, 12)}" is not a valid principal ` +
          '(letters, digits, . _ @ -, at most 64 characters)',
      );
    }
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new Error(
        `${source}: the token of "${principal}" is shorter than ${MIN_TOKEN_LENGTH} characters`,
      );
    }
    if (tokens.has(principal)) throw new Error(`${source}: principal "${principal}" is listed twice`);
    if (seen.has(token)) throw new Error(`${source}: two principals share a token`);
    tokens.set(principal, token);
    seen.add(token);
  }
  return tokens;
}

/** Tokens from MCP_AUTH_TOKENS or the file named by MCP_AUTH_TOKENS_FILE (not both). */
export function authTokensFromEnv(env: NodeJS.ProcessEnv): Map<string, string> {
  const inline = env.MCP_AUTH_TOKENS?.trim();
  const file = env.MCP_AUTH_TOKENS_FILE?.trim();
  if (inline && file) throw new Error('set MCP_AUTH_TOKENS or MCP_AUTH_TOKENS_FILE, not both');
  if (inline) return parseAuthTokens(inline, 'MCP_AUTH_TOKENS');
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`MCP_AUTH_TOKENS_FILE: cannot read ${file}: ${(err as Error).message}`);
    }
    const tokens = parseAuthTokens(text, `MCP_AUTH_TOKENS_FILE (${file})`);
    if (tokens.size === 0) throw new Error(`MCP_AUTH_TOKENS_FILE (${file}) lists no principal:token pairs`);
    return tokens;
  }
  return new Map();
}

/** Startup check: without tokens or OAuth the gateway may only listen on loopback. */
export function assertSafeBind(host: string, tokens: AuthTokens, oauth = false): void {
  if (tokens.size === 0 && !oauth && !isLoopback(host)) {
    throw new Error(
      `refusing to listen on ${host} without authentication: set MCP_AUTH_TOKENS (principal:token pairs) ` +
        'or MCP_AUTH_TOKENS_FILE, or MCP_OAUTH_ISSUER and MCP_OAUTH_AUDIENCE, or bind to 127.0.0.1',
    );
  }
}

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

const IDENTITY = Symbol('mcp.identity');
type WithIdentity = IncomingMessage & { [IDENTITY]?: Identity };

/** Who the auth hook found a request to be from, if anyone. */
export function authenticatedIdentity(request: IncomingMessage): Identity | undefined {
  return (request as WithIdentity)[IDENTITY];
}

/** The principal the auth hook attached to a request, if any. */
export function authenticatedPrincipal(request: IncomingMessage): string | undefined {
  return authenticatedIdentity(request)?.principal;
}

function refuse(reply: FastifyReply, error: 'invalid_request' | 'invalid_token', message: string) {
  const challenge =
    error === 'invalid_request'
      ? 'Bearer realm="mcp"'
      : `Bearer realm="mcp", error="invalid_token", error_description="${message}"`;
  return reply
    .code(401)
    .header('www-authenticate', challenge)
    .header('content-type', 'application/json')
    .send(errorBody(null, UNAUTHORIZED, `Unauthorized: ${message}`));
}

export function sendRefusal(reply: FastifyReply, refusal: Refusal) {
  return reply
    .code(refusal.status)
    .headers(refusal.headers)
    .header('content-type', 'application/json')
    .send(refusal.body);
}

/**
 * onRequest hook for /mcp: attaches the caller's identity, or answers 401 (403 for a token without a
 * scope the gateway requires; 503 when the identity provider cannot be asked). A static token is
 * its principal; any other token, with OAuth configured, is checked as an access token.
 */
export function bearerAuth(tokens: AuthTokens, oauth?: OAuthResourceServer) {
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
    let identity: Identity | undefined = principal ? { principal } : undefined;
    if (!identity && oauth) {
      if (!presented) return sendRefusal(reply, oauth.invalidToken('expected "Bearer <token>"'));
      const outcome = await oauth.authenticate(presented);
      if (isRefusal(outcome)) return sendRefusal(reply, outcome);
      identity = outcome;
    }
    if (!identity) return refuse(reply, 'invalid_token', 'the bearer token is not valid');
    (request.raw as WithIdentity)[IDENTITY] = identity;
  };
}
