// A run's texts in the Web UI: its summary line and its Markdown details (caller, MCP client,
// protocol revision, tool, arguments), caller-supplied text kept from making markup. Pure.
import type { RequestOrigin } from '../shared/caller.ts';
import type { RunMemo } from './run-memo.ts';

/** Temporal's limit on a run's Web UI summary, in bytes. */
const SUMMARY_MAX_BYTES = 400;

/** The Web UI summary cut to Temporal's limit (a long principal must not make the start fail). */
export function runSummary(text: string): string {
  if (Buffer.byteLength(text) <= SUMMARY_MAX_BYTES) return text;
  let cut = text.slice(0, SUMMARY_MAX_BYTES - 3);
  while (Buffer.byteLength(`${cut}…`) > SUMMARY_MAX_BYTES) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Longest argument text the Web UI details show (Temporal caps the details at 20,000 bytes). */
const DETAILS_ARGUMENTS_MAX_CHARS = 8_000;

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
    // Under the running-task cap the workflow id is the slot's: the task id the client holds is here.
    ...(run.task ? [`- **Task:** ${code(run.task)}`] : []),
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
