// The gateway's log lines for a person at a terminal: pino's JSON lines through pino-pretty, one
// line per request: the tools/call, tasks/* or subscriptions/listen line (time, method, tool, task
// id, outcome, ms), or for any other request its method, URL, status and ms; successful health and
// metrics probes are left out.
import { createRequire } from 'node:module';
import type { DestinationStream } from 'pino';
import type { MessageFormatFunc } from 'pino-pretty';
import { declarationOf, INPUT_ANSWER } from '../mcp/methods.ts';

/** pino-pretty, loaded only for a person's terminal: a JSON-logging gateway never pays its ~10 MB. */
const prettyPrinter = (): typeof import('pino-pretty') => createRequire(import.meta.url)('pino-pretty');

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

/** A line a method's outcome is logged on ("tasks/get", "tools/call refused"): its method's declaration counts it. */
function isCallLine(msg: unknown): boolean {
  if (typeof msg !== 'string') return false;
  const method = msg.split(' ', 1)[0] ?? '';
  return method === INPUT_ANSWER.logsAs || declarationOf(method)?.outcome !== undefined;
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

/** pino's JSON lines, one readable line each (pino-pretty), written to `out`; colours where supported. */
export function readableLogStream(
  out: { write(text: string): unknown },
  colorize?: boolean,
): DestinationStream {
  const printer = prettyPrinter();
  const prettify = printer.prettyFactory({
    colorize: colorize ?? printer.isColorSupported,
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
