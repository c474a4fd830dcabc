// POST /mcp, from the socket to the MCP layer and back: MCP over Streamable HTTP, stateless, both
// protocol eras (2026-07-28 and the 2025 stateless fallback). In order, for every request and every
// method (subscriptions/listen included):
//   1. who is calling: a static bearer token is its principal; any other token, with OAuth
//      configured, is checked as an access token (oauth.ts); without either, the local principal;
//   2. what it may do: per-tool OAuth scopes (oauth.ts), the poll rate limit (poll-limit.ts);
//   3. its SEP-2243 headers against its body (request-headers.ts): a 2026-07-28 request missing a
//      required one, or whose Mcp-Param-* headers miss or disagree with its arguments, is refused
//      with 400 / -32020 (a header that names something else is refused by the SDK);
//   4. the MCP layer serves it (mcp/server.ts), with the request's logger bound to the task it is
//      about, so its lines (and "request completed") carry the task id;
//   5. the answer written: JSON in one piece with its Content-Length, an event stream piped as it
//      comes. When the client goes away first, the request's signal aborts, so a tool call waiting
//      for its run stops waiting.
// Refusals here (and of bodies Fastify cannot read, refused-bodies.ts) are JSON-RPC errors built by
// mcp/errors.ts.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toWebRequest } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Catalog } from '../mcp/catalog.ts';
import { type ErrorBody, errorBody, HEADER_MISMATCH, internalError, unauthorized } from '../mcp/errors.ts';
import { ANONYMOUS, type McpServers, withRequestLog } from '../mcp/server.ts';
import { limitJsonDepth } from './json-body.ts';
import {
  type Identity,
  isRefusal,
  type OAuthResourceServer,
  type Refusal,
  type ToolScopes,
} from './oauth.ts';
import { PollRateLimiter, pollRateLimit } from './poll-limit.ts';
import { refusedBodyHandler } from './refused-bodies.ts';
import { judgeRequestHeaders } from './request-headers.ts';
import { traceRequest } from './request-tracing.ts';

/** principal → token. Empty: authentication is off (loopback only). */
export type AuthTokens = ReadonlyMap<string, string>;

export interface McpEndpointOptions {
  servers: McpServers;
  /** Which tool calls are polls (the poll rate limit applies to them and to tasks/get). */
  isPollTool: (name: string) => boolean;
  /** Whether a task id was issued to a principal (only those are remembered by the poll limiter). */
  issuedTo: (taskId: string, principal: string) => boolean;
  onError?: (error: Error) => void;
  /** principal → bearer token; absent or empty: no authentication (loopback only). */
  authTokens?: AuthTokens;
  /** Scopes of static principals; one not listed holds every scope. */
  staticScopes?: ReadonlyMap<string, readonly string[]>;
  /** OAuth access tokens of an identity provider, beside the static tokens; absent: none. */
  oauth?: OAuthResourceServer;
  /** Scopes per catalog tool (checked for OAuth tokens only). */
  toolScopes?: ToolScopes;
  /** Largest request body (413 above it); Fastify's default when absent. */
  bodyLimitBytes?: number;
  /** Polls of one task closer together than this are refused with 429; 0 or absent: off. */
  pollMinIntervalMs?: number;
  /** The catalog served: its inputSchemas' x-mcp-header declarations are checked on tools/call. */
  catalog?: ToolSchemas;
}

/** What the header rules need of the catalog. */
export type ToolSchemas = Pick<Catalog, 'tool'>;

// ---- 1. who is calling ------------------------------------------------------------------------------

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

/** The principal of an incoming HTTP request (the local one when authentication is off). */
export function principalOf(request: IncomingMessage): string {
  return authenticatedIdentity(request)?.principal ?? ANONYMOUS;
}

/** The SDK's authInfo for a principal: each per-request server is bound to it. */
export function authInfoFor(principal: string): AuthInfo {
  return { token: '', clientId: principal, scopes: [] };
}

function sendJson(
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

/**
 * onRequest hook for /mcp: attaches the caller's identity, or answers 401 (403 for a token without a
 * scope the gateway requires; 503 when the identity provider cannot be asked).
 */
export function bearerAuth(
  tokens: AuthTokens,
  oauth?: OAuthResourceServer,
  staticScopes: ReadonlyMap<string, readonly string[]> = new Map(),
) {
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
    (request.raw as WithIdentity)[IDENTITY] = identity;
  };
}

// ---- 3. request headers ------------------------------------------------------------------------------

/** Answers 400 / -32020 when the request's headers fail the SEP-2243 rules; else adds what they allow. */
function checkHeaders(request: FastifyRequest, reply: FastifyReply, catalog?: ToolSchemas): boolean {
  const verdict = judgeRequestHeaders({
    httpMethod: request.method,
    headers: request.raw.headers,
    body: request.body,
    inputSchemaOf: (name) => catalog?.tool(name)?.inputSchema,
  });
  if (verdict.ok) {
    Object.assign(request.raw.headers, verdict.add);
    return true;
  }
  const { message, data } = verdict.refusal;
  sendJson(reply, 400, errorBody(requestId(request.body), HEADER_MISMATCH, message, data));
  return false;
}

// ---- 4. the task id on the request's log lines -----------------------------------------------------

const MAX_ID_LENGTH = 200;
const TASK_ID = Symbol('taskId');

function cleanId(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, MAX_ID_LENGTH) : undefined;
}

/** The task a tasks/* request names in its Mcp-Name header (2026-07-28 requests carry it). */
function taskIdFromHeaders(raw: IncomingMessage): string | undefined {
  const method = raw.headers['mcp-method'];
  const name = raw.headers['mcp-name'];
  return typeof method === 'string' && method.startsWith('tasks/') ? cleanId(name) : undefined;
}

/** The task or run a JSON-RPC request body names: tasks/*'s taskId, a tool's workflow_id. */
export function taskIdFromBody(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: Record<string, unknown> };
  if (typeof method === 'string' && method.startsWith('tasks/')) return cleanId(params?.taskId);
  if (method === 'tools/call') {
    return cleanId((params?.arguments as Record<string, unknown> | undefined)?.workflow_id);
  }
  return undefined;
}

/** Fastify's per-request child logger, bound to the task a tasks/* request names in its headers. */
export const childLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
  raw,
) => {
  const taskId = taskIdFromHeaders(raw);
  const child = logger.child(taskId ? { ...bindings, taskId } : bindings, options);
  if (taskId) (raw as unknown as Record<symbol, string>)[TASK_ID] = taskId;
  return child;
};

/** Binds `taskId` to the request's logger (request.log and reply.log), once per request. */
function bindTask(request: FastifyRequest, reply: FastifyReply, taskId: string | undefined) {
  const id = cleanId(taskId);
  const raw = request.raw as unknown as Record<symbol, string | undefined>;
  if (id && raw[TASK_ID] === undefined) {
    raw[TASK_ID] = id;
    const child = request.log.child({ taskId: id });
    request.log = child;
    reply.log = child;
  }
  return request.log;
}

/**
 * preHandler hook (the body is parsed by then): binds the task the request's body names, so the
 * request's later lines (a refusal, the handler's lines, "request completed") carry it.
 */
export async function bindTaskFromBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  bindTask(request, reply, taskIdFromBody(request.body));
}

// ---- 5. the answer written ---------------------------------------------------------------------------

/** The id of a parsed JSON-RPC request, to echo in an error answer; null when there is none. */
function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * Pipes an event stream to the client until it ends or the client goes away; then the stream is
 * cancelled at once (its source stops), not at its next frame.
 */
async function pipeEventStream(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  const closed = new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      if (!res.write(value))
        await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  } catch {
    // The stream ended under us (the client left): nothing more to write.
  } finally {
    signal.removeEventListener('abort', stop);
    if (signal.aborted) stop();
  }
}

/**
 * Writes the web Response `produce` makes onto the Node.js response. (The SDK's Node adapter
 * streams every body chunked: a JSON answer then leaves in two writes, and the client wakes up
 * twice for it.) `signal` aborts when the client goes away before the answer is complete.
 */
export async function writeResponse(
  res: ServerResponse,
  produce: (signal: AbortSignal) => Promise<Response>,
  parsedBody: unknown,
  onError?: (error: Error) => void,
): Promise<void> {
  let answered = false;
  const gone = new AbortController();
  res.on('close', () => {
    if (!answered) gone.abort();
  });
  let response: Response;
  try {
    response = await produce(gone.signal);
  } catch (err) {
    onError?.(err instanceof Error ? err : new Error(String(err)));
    response = Response.json(internalError(requestId(parsedBody)), { status: 500 });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (response.body === null || !(headers['content-type'] ?? '').includes('text/event-stream')) {
    const body = response.body === null ? undefined : Buffer.from(await response.arrayBuffer());
    if (body) headers['content-length'] = String(body.length);
    answered = true;
    res.writeHead(response.status, headers).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  await pipeEventStream(response.body, res, gone.signal);
  answered = true;
  res.end();
}

// ---- the route ---------------------------------------------------------------------------------------

export const mcpEndpoint: FastifyPluginAsync<McpEndpointOptions> = async (app, options) => {
  // Streams end and waiting calls answer before the server waits for its connections to close.
  app.addHook('preClose', async () => options.servers.drain());
  app.addHook('onClose', async () => options.servers.close());
  // Hooks of this plugin apply to /mcp only: /healthz and /readyz stay open for probes.
  const tokens = options.authTokens ?? new Map<string, string>();
  if (tokens.size > 0 || options.oauth)
    app.addHook('onRequest', bearerAuth(tokens, options.oauth, options.staticScopes));
  app.addHook('preHandler', bindTaskFromBody);
  if (options.oauth && options.toolScopes && !options.toolScopes.empty) {
    app.addHook('preHandler', options.toolScopes.hook(options.oauth, authenticatedIdentity, sendRefusal));
  }
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  limitJsonDepth(app);
  app.setErrorHandler(refusedBodyHandler(bodyLimit));
  if (options.pollMinIntervalMs) {
    const limiter = new PollRateLimiter(options.pollMinIntervalMs);
    app.addHook(
      'preHandler',
      pollRateLimit(limiter, {
        principalOf: (request) => principalOf(request.raw),
        isPollTool: options.isPollTool,
        issuedTo: options.issuedTo,
      }),
    );
  }
  app.all('/mcp', { bodyLimit }, async (request, reply) => {
    if (!checkHeaders(request, reply, options.catalog)) return reply;
    reply.hijack();
    const principal = principalOf(request.raw);
    const authInfo = authInfoFor(principal);
    const body = request.body;
    await traceRequest(request, reply, principal, (decorate) => {
      const log = { bindTask: (taskId: string | undefined) => bindTask(request, reply, taskId) };
      return withRequestLog(log, () =>
        writeResponse(
          reply.raw,
          async (signal) =>
            decorate(
              await options.servers.fetch(
                await toWebRequest(request.raw, body, { signal }),
                authInfo,
                body,
                signal,
              ),
            ),
          body,
          options.onError,
        ),
      );
    });
  });
};
