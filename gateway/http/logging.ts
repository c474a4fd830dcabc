// The gateway's logs: Fastify's JSON (pino) logs, with no secrets and with the task id on every
// line about a task; for a person at a terminal, the same lines through pino-pretty.
//
// - Format (LOG_FORMAT): `pretty` when stdout is a terminal (one line per request, log-format.ts),
//   `json` otherwise; LOG_FORMAT=json or LOG_FORMAT=pretty forces one.
// - Secrets: authorization and cookie headers, and any `token`/`apiKey`/`secret`/`password` field,
//   are redacted; bearer tokens and token-like query parameters are scrubbed from messages, URLs
//   and errors. The request serializer logs a few MCP headers, never the Authorization header.
// - Task ids: the task a request is about is bound to its logger (from its Mcp-Name header when it
//   names a task, else from its body), so every line about a task carries `taskId`.
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { type DestinationStream, destination } from 'pino';
import { declarationOf } from '../mcp/methods.ts';
import { readableLogStream } from './log-format.ts';

const MAX_ID_LENGTH = 200;

const REDACTED = '[redacted]';

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["proxy-authorization"]',
  'headers.cookie',
  'authorization',
  '*.authorization',
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'password',
  '*.password',
];

/** Removes bearer tokens and token-like query values from a string. */
export function scrubSecrets(text: string): string {
  return text
    .replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`)
    .replace(/([?&](?:access_token|token|api_key|apikey|key|secret|password)=)[^&#\s]*/gi, `$1${REDACTED}`);
}

function header(raw: IncomingMessage, name: string): string | undefined {
  const value = raw.headers[name];
  return typeof value === 'string' ? value : undefined;
}

const serializers = {
  req(req: { method?: string; url?: string; host?: string; ip?: string; raw?: IncomingMessage }) {
    const raw = req.raw;
    return {
      method: req.method,
      url: req.url === undefined ? undefined : scrubSecrets(req.url),
      host: req.host,
      remoteAddress: req.ip,
      ...(raw ? mcpHeaders(raw) : {}),
    };
  },
  err(err: Error & { code?: unknown; statusCode?: unknown }) {
    return {
      type: err?.name,
      message: scrubSecrets(String(err?.message ?? err)),
      ...(err?.stack ? { stack: scrubSecrets(err.stack) } : {}),
      ...(err?.code === undefined ? {} : { code: err.code }),
      ...(err?.statusCode === undefined ? {} : { statusCode: err.statusCode }),
    };
  },
};

function mcpHeaders(raw: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const method = header(raw, 'mcp-method');
  const version = header(raw, 'mcp-protocol-version');
  if (method) out.mcpMethod = method.slice(0, MAX_ID_LENGTH);
  if (version) out.mcpProtocolVersion = version.slice(0, 40);
  return out;
}

/**
 * Fastify logger options with the gateway's redaction and serializers; `false` stays `false`.
 * Accepts what AppDeps.logger accepts (true, or pino options such as level and stream).
 */
export function loggerOptions(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const base = logger === true ? {} : (logger as Record<string, unknown>);
  return {
    ...base,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: { ...(base.serializers as object | undefined), ...serializers },
    hooks: {
      // String arguments (messages) are scrubbed too: a token pasted into a message never shows.
      logMethod(args: unknown[], method: (...args: unknown[]) => void) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg)),
        );
      },
    },
  } as FastifyServerOptions['logger'];
}

export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT when set (json or pretty), else pretty on a terminal and JSON otherwise. */
export function logFormat(env: NodeJS.ProcessEnv, stdoutIsTTY: boolean): LogFormat {
  const raw = env.LOG_FORMAT?.trim().toLowerCase();
  if (!raw) return stdoutIsTTY ? 'pretty' : 'json';
  if (raw === 'json' || raw === 'pretty') return raw;
  throw new Error(`LOG_FORMAT must be "json" or "pretty", got "${env.LOG_FORMAT}"`);
}

/**
 * Where the gateway's log lines go on stdout. JSON is written asynchronously (off the request path);
 * pretty lines synchronously (a terminal, where nothing may be lost at exit).
 */
export function logDestination(format: LogFormat): DestinationStream {
  if (format === 'json') return destination({ dest: 1, sync: false });
  return readableLogStream(destination({ dest: 1, sync: true }));
}

// ---- the task a request is about, on its log lines -------------------------------------------------

function cleanId(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, MAX_ID_LENGTH) : undefined;
}

/** The task a request names in its Mcp-Name header, when its method's declaration says the header names one. */
function taskIdFromHeaders(raw: IncomingMessage): string | undefined {
  const method = raw.headers['mcp-method'];
  if (typeof method !== 'string' || declarationOf(method)?.mcpName?.param !== 'taskId') return undefined;
  return cleanId(raw.headers['mcp-name']);
}

/** Fastify's per-request child logger, bound to the task a tasks/* request names in its headers. */
export const childLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
  raw,
) => {
  const taskId = taskIdFromHeaders(raw);
  return logger.child(taskId ? { ...bindings, taskId } : bindings, options);
};

/** The task the request's logger is bound to so far, as the logger itself says. */
function boundTaskId(request: FastifyRequest): unknown {
  const log = request.log as { bindings?: () => Record<string, unknown> };
  return log.bindings?.().taskId;
}

/** Binds `taskId` to the request's logger (request.log and reply.log), once per request. */
export function bindTask(request: FastifyRequest, reply: FastifyReply, taskId: string | undefined) {
  const id = cleanId(taskId);
  if (id && boundTaskId(request) === undefined) {
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
  // The task the body names, wherever its method carries it (mcp/methods.ts).
  bindTask(request, reply, request.mcpBody.taskId);
}
