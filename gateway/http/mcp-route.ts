// POST /mcp, from the socket to the MCP layer and back, for both protocol eras: who is calling, the
// body read once, what the caller may do, the headers against the body, the MCP layer's answer
// written (answer-writer.ts). Its refusals are JSON-RPC errors built by mcp/errors.ts.
import type { IncomingMessage } from 'node:http';
import type { InboundClassificationOutcome } from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../mcp/catalog.ts';
import { errorBody, HEADER_MISMATCH, insufficientScope } from '../mcp/errors.ts';
import { ANONYMOUS, type McpHandler } from '../mcp/handler.ts';
import { readMessage } from '../mcp/methods.ts';
import type { Rights } from '../mcp/rights.ts';
import type { ParamHeader } from '../mcp/schemas.ts';
import type { Caller } from '../shared/caller.ts';
import { tracing } from '../shared/tracing.ts';
import { writeResponse } from './answer-writer.ts';
import { type Authentication, bearerAuth, sendJson, sendRefusal } from './bearer-auth.ts';
import { limitJsonDepth, type McpMessage, readMcpBody } from './body.ts';
import { bindTask, bindTaskFromBody } from './logging.ts';
import type { Refusal } from './oauth.ts';
import { PollRateLimiter, type PollRateLimitOptions, pollRateLimit } from './poll-limit.ts';
import { refusedBodyHandler } from './refused-bodies.ts';
import { judgeRequestHeaders } from './request-headers.ts';
import { traceRequest } from './request-tracing.ts';

export interface McpRouteOptions {
  mcp: McpHandler;
  /** How callers sign in with the gateway's own tokens (the host's `authenticate` is a hook before this route). */
  auth: Authentication;
  /** The tools whose messages the method table reads. */
  catalog: Catalog;
  /** What each caller's scopes allow, whoever signed them in. */
  rights: Rights;
  /** Largest request body (413 above it). */
  bodyLimitBytes: number;
  /** Longest an answer's write may wait for its client to read; then the connection is cut. */
  writeTimeoutMs: number;
  /** Polls of one task closer together than `minIntervalMs` are refused with 429; absent: no limit. */
  pollLimit?: Omit<PollRateLimitOptions, 'principalOf'> & { minIntervalMs: number };
  /** The Mcp-Param-* declarations of the served tools, by name. */
  paramHeaders: ReadonlyMap<string, readonly ParamHeader[]>;
  onError?: (error: Error) => void;
}

/**
 * Answers 400 / -32020 when the request's headers fail the SEP-2243 rules, and gives undefined;
 * else the request's protocol classification and the headers the gateway supplies.
 */
function checkHeaders(request: FastifyRequest, reply: FastifyReply, options: McpRouteOptions) {
  const verdict = judgeRequestHeaders({
    httpMethod: request.method,
    headers: request.raw.headers,
    body: request.body,
    paramHeaders: options.paramHeaders,
  });
  if (verdict.ok) return { route: verdict.route, supplied: verdict.add };
  const { message, data } = verdict.refusal;
  sendJson(reply, 400, errorBody(request.mcpBody.id, HEADER_MISMATCH, message, data));
  return undefined;
}

/** Headers that describe a body's bytes: the web request carries none. */
const BODY_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/**
 * The request as the SDK's handler takes it: method, URL, headers (with those the gateway supplies)
 * and the caller's signal. Its body is handed over already parsed (`parsedBody`), so it is not
 * turned back into JSON text.
 */
function webRequestOf(raw: IncomingMessage, supplied: Record<string, string>, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries({ ...raw.headers, ...supplied })) {
    if (value === undefined || name.startsWith(':') || BODY_HEADERS.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const url = `http://${raw.headers.host ?? 'localhost'}${raw.url ?? '/'}`;
  return new Request(url, { method: raw.method ?? 'POST', headers, signal });
}

/** What a refused message needed, for the refusal's description. */
function refusedWhat({ envelope, reading }: McpMessage) {
  const tools = reading.tools.map((tool) => tool.name).join(', ') || reading.called;
  const method = envelope.method ?? 'the answer to an input request';
  return tools ? `${method} on ${tools}` : method;
}

/**
 * preHandler hook: every message of the body checked against the caller's scopes (mcp/rights.ts),
 * whoever signed the caller in; a message needing a scope the caller lacks is 403
 * `insufficient_scope` naming every scope it needs, and nothing of the body reaches the MCP layer.
 */
function scopeCheck({ rights, auth }: McpRouteOptions) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const held = request.identity?.scopes;
    if (held === undefined) return;
    for (const message of request.mcpBody.messages) {
      const needed = rights.missingScopes(message.reading, held);
      if (!needed) continue;
      const description = `the caller lacks a scope ${refusedWhat(message)} needs`;
      const id = message.envelope.id ?? null;
      const refusal: Refusal = auth.oauth
        ? auth.oauth.insufficientScope(needed, description, id)
        : {
            status: 403,
            headers: {
              'www-authenticate': `Bearer realm="mcp", error="insufficient_scope", scope="${needed.join(' ')}"`,
            },
            body: insufficientScope(id, description, needed),
          };
      return sendRefusal(reply, refusal);
    }
  };
}

/** The hooks of /mcp, in order: who is calling, the body read, the task on its log, its rights, its poll rate. */
function admission(app: Parameters<FastifyPluginAsync>[0], options: McpRouteOptions): void {
  const { auth, catalog, pollLimit } = options;
  // Hooks of this plugin apply to /mcp only: /healthz and /readyz stay open for probes.
  if (auth.tokens.size > 0 || auth.oauth) app.addHook('onRequest', bearerAuth(auth));
  // The body read once, as envelopes with what each message touches, for every step after it.
  app.decorateRequest('mcpBody');
  app.addHook('preValidation', async (request) => {
    request.mcpBody = readMcpBody(request.body, (envelope, message) =>
      readMessage(catalog, envelope, message),
    );
  });
  app.addHook('preHandler', bindTaskFromBody);
  app.addHook('preHandler', scopeCheck(options));
  if (pollLimit) {
    const { minIntervalMs, ...rest } = pollLimit;
    const principal = (request: FastifyRequest) => request.identity?.principal ?? ANONYMOUS;
    app.addHook(
      'preHandler',
      pollRateLimit(new PollRateLimiter(minIntervalMs), { ...rest, principalOf: principal }),
    );
  }
}

/** One request on its way through: who it is from, its protocol classification, the headers supplied. */
interface RoutedRequest {
  request: FastifyRequest;
  reply: FastifyReply;
  principal: string;
  route: InboundClassificationOutcome;
  supplied: Record<string, string>;
}

/** The MCP layer's answer to one request, written to its socket; `withTrace` adds the trace context. */
function answer(
  { request, reply, principal, route, supplied }: RoutedRequest,
  options: McpRouteOptions,
  withTrace: (response: Response) => Promise<Response>,
): Promise<void> {
  // A token's scopes reach the MCP layer (resources/list lists only what they cover); a static
  // token without scopes of its own holds every scope.
  const scopes = request.identity?.scopes;
  const caller: Caller = scopes ? { principal, scopes: [...scopes] } : { principal };
  const authInfo = { token: '', clientId: principal, scopes: [...(scopes ?? [])] };
  // The MCP layer logs on the request's logger and learns when the answer has gone (a read holds
  // its budget until then); it gives back the task its answer is about, bound here for the last line.
  const answered = new Promise<void>((resolve) => reply.raw.once('close', () => resolve()));
  const { envelope, id, messages } = request.mcpBody;
  let answerTask: string | undefined;
  return writeResponse(
    reply.raw,
    async (callerLeft) => {
      const answer = await options.mcp.fetch({
        ...{ request: webRequestOf(request.raw, supplied, callerLeft), authInfo, caller },
        ...{ parsedBody: request.body, envelope, route, callerLeft, answered, log: request.log },
        // The task ids the body named, parsed once (mcp/methods.ts): the handlers take them as they are.
        tasks: messages.flatMap((message) => message.reading.tasks),
        ...(request.mcpBody.taskId ? { boundTask: request.mcpBody.taskId } : {}),
      });
      answerTask = answer.taskId;
      return withTrace(answer.response);
    },
    {
      requestId: id,
      writeTimeoutMs: options.writeTimeoutMs,
      beforeEnd: () => bindTask(request, reply, answerTask),
      onCut: () =>
        request.log.warn(
          { writeTimeoutMs: options.writeTimeoutMs },
          'answer cut: its client read none of it within MCP_WRITE_TIMEOUT_MS',
        ),
      onError: options.onError,
    },
  );
}

export const mcpRoute: FastifyPluginAsync<McpRouteOptions> = async (app, options) => {
  // Streams end and waiting calls answer before the server waits for its connections to close.
  app.addHook('preClose', async () => options.mcp.drain());
  app.addHook('onClose', async () => options.mcp.close());
  admission(app, options);
  limitJsonDepth(app);
  app.setErrorHandler(refusedBodyHandler(options.bodyLimitBytes));
  app.all('/mcp', { bodyLimit: options.bodyLimitBytes }, async (request, reply) => {
    const judged = checkHeaders(request, reply, options);
    if (!judged) return reply;
    reply.hijack();
    // Every request is served as its caller: the local principal when nobody authenticates.
    const principal = request.identity?.principal ?? ANONYMOUS;
    const serve = (withTrace: (response: Response) => Promise<Response>) =>
      answer({ request, reply, principal, ...judged }, options, withTrace);
    await (tracing ? traceRequest(request, reply, principal, serve) : serve(async (response) => response));
  });
};
