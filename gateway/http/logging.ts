// The gateway's logs: Fastify's JSON (pino) logs, with no secrets and with the task id on every
// line about a task; for a person at a terminal, the same lines through pino-pretty.
//
// - Format (LOG_FORMAT): `pretty` when stdout is a terminal, `json` otherwise; LOG_FORMAT=json or
//   LOG_FORMAT=pretty forces one. Pretty shows one line per request: the tools/call or tasks/* line
//   (time, method, tool, task id, outcome, ms), or for any other request its method, URL, status
//   and ms; successful health and metrics probes are left out.
// - Secrets: authorization and cookie headers, and any `token`/`apiKey`/`secret`/`password` field,
//   are redacted; bearer tokens and token-like query parameters are scrubbed from messages, URLs
//   and errors. The request serializer logs a few MCP headers, never the Authorization header.
// - Task ids: a tasks/* request names its task in the Mcp-Name header, so even "incoming request"
//   carries `taskId`; a request whose body names a run (get_mining_result, cancel_mining, ...) gets
//   it once the body is parsed (bindTaskFromBody); start_mining binds the id it created (tagTask)
//   once it knows it. Everything the request logs afterwards, "request completed" included,
//   carries it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { type DestinationStream, destination } from 'pino';
import type { MessageFormatFunc } from 'pino-pretty';

/** pino-pretty, loaded only for a person's terminal: a JSON-logging gateway never pays its ~10 MB. */
const prettyPrinter = (): typeof import('pino-pretty') => createRequire(import.meta.url)('pino-pretty');

const MAX_ID_LENGTH = 200;
const TASK_ID = Symbol('taskId');

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

function cleanId(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, MAX_ID_LENGTH) : undefined;
}

/** The task a tasks/* request names in its Mcp-Name header (2026-07-28 requests carry it). */
function taskIdFromHeaders(raw: IncomingMessage): string | undefined {
  const method = header(raw, 'mcp-method');
  return method?.startsWith('tasks/') ? cleanId(header(raw, 'mcp-name')) : undefined;
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

interface RequestScope {
  request: FastifyRequest;
  reply: FastifyReply;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** Binds `taskId` to the request's logger (request.log and reply.log), once per request. */
function bindTask(request: FastifyRequest, reply: FastifyReply, taskId: string | undefined): void {
  const id = cleanId(taskId);
  const raw = request.raw as unknown as Record<symbol, string | undefined>;
  if (!id || raw[TASK_ID] !== undefined) return;
  raw[TASK_ID] = id;
  const child = request.log.child({ taskId: id });
  request.log = child;
  reply.log = child;
}

/**
 * preHandler hook (the body is parsed by then): binds the task the request's body names, so the
 * request's later lines (a refusal, the handler's lines, "request completed") carry it.
 */
export async function bindTaskFromBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  bindTask(request, reply, taskIdFromBody(request.body));
}

/**
 * Binds `taskId` to the logger of the request being served (see withRequestLog), so the rest of
 * its lines, "request completed" included, carry it; returns that logger. Outside a request: a no-op.
 */
export function tagTask(taskId: string | undefined): FastifyBaseLogger | undefined {
  const current = scope.getStore();
  if (!current) return undefined;
  bindTask(current.request, current.reply, taskId);
  return current.request.log;
}

/** The logger of the request being served, if any. */
export function requestLog(): FastifyBaseLogger | undefined {
  return scope.getStore()?.request.log;
}

/** Runs the MCP handler for one request with its logger reachable (requestLog, tagTask). */
export function withRequestLog<T>(request: FastifyRequest, reply: FastifyReply, run: () => Promise<T>) {
  return scope.run({ request, reply }, run);
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
  return readableLogStream(
    destination({ dest: 1, sync: true }),
    colorize ?? prettyPrinter().isColorSupported,
  );
}

/** Fields the request line shows in its message (or a person does not need). */
const SHOWN_IN_MESSAGE = [
  'pid',
  'hostname',
  'reqId',
  'req',
  'res',
  'responseTime',
  'tool',
  'outcome',
  'ms',
  'taskId',
  'method',
  'status',
  'error',
];
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);
const REFUSALS = new Set(['not_found', 'invalid_params', 'missing_capability']);
const MAX_OPEN_REQUESTS = 10_000;
const WARN = 40; // pino's level number

type LogLine = Record<string, unknown>;

/** A value shown inside the one-line message: no control characters, line breaks included. */
function printable(value: unknown): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return String(value ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/**
 * The line with every string's control characters (but line breaks and tabs, which stacks use)
 * replaced: text from a request (ids, URLs, error messages quoting them) cannot drive the terminal.
 */
function withoutControlCharacters(value: unknown): unknown {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  if (typeof value === 'string') return value.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
  if (Array.isArray(value)) return value.map(withoutControlCharacters);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withoutControlCharacters(item)]),
    );
  return value;
}

function isCallLine(msg: unknown): boolean {
  return (
    typeof msg === 'string' &&
    (msg === 'tools/call' || msg.startsWith('tools/call ') || msg.startsWith('tasks/'))
  );
}

const messageFormat: MessageFormatFunc = (log, messageKey, _levelLabel, { colors }) => {
  const msg = log[messageKey];
  if (isCallLine(msg)) {
    const outcome = printable(log.outcome);
    const paint = outcome === 'error' ? colors.red : REFUSALS.has(outcome) ? colors.yellow : colors.green;
    const error = log.error as { message?: unknown } | undefined;
    return [
      printable(msg),
      ...(log.tool === undefined ? [] : [printable(log.tool)]),
      ...(log.taskId === undefined ? [] : [printable(log.taskId)]),
      `\u2192 ${paint(outcome)}${log.status === undefined ? '' : ` (${printable(log.status)})`}`,
      `${printable(log.ms)} ms${error?.message === undefined ? '' : `: ${printable(error.message)}`}`,
    ].join(' ');
  }
  if (msg === 'request completed') {
    const req = (log.req ?? {}) as { method?: unknown; url?: unknown; mcpMethod?: unknown };
    const status = Number((log.res as { statusCode?: unknown } | undefined)?.statusCode);
    const paint = status >= 500 ? colors.red : status >= 400 ? colors.yellow : colors.green;
    return [
      printable(req.method ?? '?'),
      printable(req.url ?? '?'),
      ...(req.mcpMethod === undefined ? [] : [printable(req.mcpMethod)]),
      `\u2192 ${paint(String(status))}`,
      `${Math.round(Number(log.responseTime))} ms`,
    ].join(' ');
  }
  return printable(msg);
};

/**
 * Keeps one line per request: the tools/call or tasks/* line when there is one, else "request
 * completed" with the method and URL of its "incoming request" line. Warnings and errors a request
 * logs are kept too; its other info lines (Fastify's "Route ... not found") are not.
 */
function oneLinePerRequest() {
  const open = new Map<unknown, { req?: LogLine; reported: boolean }>();
  return (line: LogLine): LogLine | undefined => {
    const reqId = line.reqId;
    if (reqId === undefined) return line;
    if (line.msg === 'incoming request') {
      if (open.size >= MAX_OPEN_REQUESTS) open.delete(open.keys().next().value);
      open.set(reqId, { req: line.req as LogLine | undefined, reported: false });
      return undefined;
    }
    if (isCallLine(line.msg)) {
      const request = open.get(reqId);
      if (request) request.reported = true;
      return line;
    }
    if (line.msg === 'request completed') {
      const request = open.get(reqId);
      open.delete(reqId);
      if (request?.reported) return undefined;
      const req = request?.req ?? {};
      const status = Number((line.res as { statusCode?: unknown } | undefined)?.statusCode);
      const path = String(req.url ?? '').split('?')[0] as string;
      if (PROBES.has(path) && status < 400) return undefined;
      return { ...line, req };
    }
    return Number(line.level) >= WARN ? line : undefined;
  };
}

/** pino's JSON lines, one readable line each (pino-pretty), written to `out`. */
export function readableLogStream(
  out: { write(text: string): unknown },
  colorize: boolean,
): DestinationStream {
  const prettify = prettyPrinter().prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    customPrettifiers: { time: (time) => String(time) },
    ignore: SHOWN_IN_MESSAGE.join(','),
    messageFormat,
    singleLine: true,
  });
  const keep = oneLinePerRequest();
  let pending = '';
  return {
    write(chunk: string) {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const text of lines) {
        if (!text.trim()) continue;
        let line: LogLine;
        try {
          line = JSON.parse(text);
        } catch {
          out.write(`${text}\n`);
          continue;
        }
        const kept = keep(line);
        if (kept) out.write(prettify(withoutControlCharacters(kept)));
      }
    },
  };
}
