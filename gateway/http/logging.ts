// The gateway's logs: Fastify's JSON (pino) logs, with no secrets and with the task id on every
// line about a task; for a person at a terminal, the same lines through pino-pretty.
//
// - Format (LOG_FORMAT): `pretty` when stdout is a terminal (one line per request, log-format.ts),
//   `json` otherwise; LOG_FORMAT=json or LOG_FORMAT=pretty forces one.
// - Secrets: authorization and cookie headers, and any `token`/`apiKey`/`secret`/`password` field,
//   are redacted; bearer tokens and token-like query parameters are scrubbed from messages, URLs
//   and errors. The request serializer logs a few MCP headers, never the Authorization header.
// - Task ids: mcp-endpoint.ts binds the task a request is about to its logger, so every line
//   about a task carries `taskId`.
import type { IncomingMessage } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import { type DestinationStream, destination } from 'pino';
import { readableLogStream } from './log-format.ts';

const MAX_ID_LENGTH = 200;

export const REDACTED = '[redacted]';

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
export function logDestination(format: LogFormat, colorize?: boolean): DestinationStream {
  if (format === 'json') return destination({ dest: 1, sync: false });
  return readableLogStream(destination({ dest: 1, sync: true }), colorize);
}
