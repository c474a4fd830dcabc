// What the Temporal Web UI shows for a run besides its one-line summary (which the tool's
// presentation writes): Markdown details (caller, MCP client, protocol revision, the arguments as
// sent). Pure.
import type { RequestOrigin } from '../mcp/request-origin.ts';

export interface RunDescription {
  tool: string;
  arguments: Record<string, unknown>;
  principal: string;
  origin?: RequestOrigin;
}

function clientLine(origin: RequestOrigin | undefined): string {
  if (origin?.clientName) {
    return `\`${origin.clientName}\`${origin.clientVersion ? ` ${origin.clientVersion}` : ''}`;
  }
  const agent = origin?.userAgent ? ` (User-Agent \`${origin.userAgent}\`)` : '';
  return `not named on this request${agent}: 2025-era clients name themselves only in \`initialize\``;
}

export function runDetails(run: RunDescription): string {
  return [
    `- **Caller:** \`${run.principal}\``,
    `- **MCP client:** ${clientLine(run.origin)}`,
    `- **Protocol revision:** ${run.origin?.protocolVersion ?? 'unknown'}`,
    `- **Tool:** \`${run.tool}\``,
    '',
    '**Arguments:**',
    '',
    '```json',
    JSON.stringify(run.arguments, null, 2),
    '```',
  ].join('\n');
}
