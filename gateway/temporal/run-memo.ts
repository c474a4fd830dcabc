// What a run carries: the memo (tool, arguments, principal, client), the search attributes that
// find it, and the one line and the Markdown the Web UI shows. Pure.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const MCP_TOOL = defineSearchAttributeKey('McpTool', SearchAttributeType.KEYWORD);
export const MCP_PRINCIPAL = defineSearchAttributeKey('McpPrincipal', SearchAttributeType.KEYWORD);

/** Who is calling: every task operation is scoped to the principal that started the task. */
export interface Caller {
  principal: string;
  /** The MCP client and protocol revision of the request, when known (shown in the Web UI). */
  origin?: RequestOrigin;
}

/** Which MCP client sent the request that started a run, shown in the Web UI. */
export interface RequestOrigin {
  /** The client's `clientInfo.name`, when the request carried it. */
  clientName?: string;
  clientVersion?: string;
  /** The protocol revision the request was sent under, when known. */
  protocolVersion?: string;
  /** The HTTP User-Agent, a hint for 2025-era clients that do not name themselves per request. */
  userAgent?: string;
}

/** What the gateway stores in a run's memo. */
export interface RunMemo {
  tool: string;
  /**
   * When the gateway started the run (ISO time): the task's createdAt, the same in the handle a
   * start answers with and in every later view, with no describe needed for the handle.
   */
  createdAt?: string;
  arguments: Record<string, unknown>;
  principal: string;
  /** The MCP client and protocol revision that started the run. */
  origin?: RequestOrigin;
  /** The W3C trace context of the start, when the gateway traced it: polls and pushes link to it. */
  trace?: RunTrace;
}

/** A W3C trace context as the memo keeps it. */
export interface RunTrace {
  traceparent?: string;
  tracestate?: string;
}

/** Temporal's limit on a run's Web UI summary, in bytes. */
export const SUMMARY_MAX_BYTES = 400;

/** The Web UI summary cut to Temporal's limit (a long principal must not make the start fail). */
export function runSummary(text: string): string {
  if (Buffer.byteLength(text) <= SUMMARY_MAX_BYTES) return text;
  let cut = text.slice(0, SUMMARY_MAX_BYTES - 3);
  while (Buffer.byteLength(`${cut}…`) > SUMMARY_MAX_BYTES) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Longest argument text the Web UI details show (Temporal caps the details at 20,000 bytes). */
export const DETAILS_ARGUMENTS_MAX_CHARS = 8_000;

/**
 * Caller-supplied text as Markdown inline code: backticks and line breaks cannot end the span or
 * start markup of their own, and the text is cut to a bounded length.
 */
function code(text: string, max = 200): string {
  const flat = text.replace(/[`\r\n]/g, ' ');
  return `\`${flat.length > max ? `${flat.slice(0, max)}…` : flat}\``;
}

/** Caller-supplied text as plain Markdown: no character that could start markup, bounded. */
function plain(text: string, max = 50): string {
  const flat = text.replace(/[`*_[\]<>#\\\r\n]/g, '');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A fenced block no content can close: its fence is longer than any run of backticks inside. */
function fenced(language: string, text: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${language}`, text, fence];
}

function clientLine(origin: RequestOrigin | undefined): string {
  if (origin?.clientName) {
    return `${code(origin.clientName)}${origin.clientVersion ? ` ${plain(origin.clientVersion)}` : ''}`;
  }
  const agent = origin?.userAgent ? ` (User-Agent ${code(origin.userAgent)})` : '';
  return `not named on this request${agent}: 2025-era clients name themselves only in \`initialize\``;
}

/** The Web UI's details of a run (Markdown): caller, MCP client, protocol revision, arguments. */
export function runDetails(run: Omit<RunMemo, 'createdAt'>): string {
  let args = JSON.stringify(run.arguments, null, 2);
  if (args.length > DETAILS_ARGUMENTS_MAX_CHARS) {
    args = `${args.slice(0, DETAILS_ARGUMENTS_MAX_CHARS)}\n… (${args.length - DETAILS_ARGUMENTS_MAX_CHARS} more characters)`;
  }
  return [
    `- **Caller:** ${code(run.principal)}`,
    `- **MCP client:** ${clientLine(run.origin)}`,
    `- **Protocol revision:** ${plain(run.origin?.protocolVersion ?? 'unknown')}`,
    `- **Tool:** ${code(run.tool)}`,
    '',
    '**Arguments:**',
    '',
    ...fenced('json', args),
  ].join('\n');
}
