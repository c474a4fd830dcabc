// What the Temporal Web UI shows for a run: a one-line summary (tool and key arguments) and
// Markdown details (caller, MCP client, protocol revision, the arguments as sent). Pure.
import type { MineChainInput } from '../../workflows/contract.ts';
import type { RequestOrigin } from '../mcp/request-origin.ts';

export interface RunDescription {
  tool: string;
  arguments: Record<string, unknown>;
  input: MineChainInput;
  principal: string;
  origin?: RequestOrigin;
}

export function runSummary(run: RunDescription): string {
  const { tool, input, principal } = run;
  const approval = input.requireApproval ? ', approval required' : '';
  return `${tool}: ${input.blocks} block(s) at difficulty ${input.difficulty}${approval} for ${principal}`;
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
