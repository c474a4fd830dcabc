// The CLI's own options, wherever they stand on the command line; every other token is the tool's
// (its name first, then its flags), read later against the tool's inputSchema.

export interface CliOptions {
  url: string;
  token?: string;
  /** The Tasks flow (false with --no-tasks: the start/poll flow). */
  tasks: boolean;
  resume?: string;
  /** The tool that started the task to resume (--tool), for the start/poll flow. */
  tool?: string;
  /** --args: tool arguments as a JSON object. */
  args?: string;
  stuckLimit: number;
  json: boolean;
  help: boolean;
  /** The tool to call: the first token that is not an option. */
  toolName?: string;
  /** The tool's flags, in order. */
  toolTokens: string[];
}

export class UsageError extends Error {
  override name = 'UsageError';
}

const VALUED = ['url', 'token', 'resume', 'tool', 'args', 'stuck-limit'] as const;
const SWITCHES = ['no-tasks', 'json', 'help'] as const;

/** Names the CLI keeps for itself: a tool argument spelt like one goes in --args. */
export const CLI_OPTION_NAMES: readonly string[] = [...VALUED, ...SWITCHES];

export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const valued: Partial<Record<(typeof VALUED)[number], string>> = {};
  const switches = new Set<string>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '-h') {
      switches.add('help');
      continue;
    }
    const eq = token.indexOf('=');
    const name = token.startsWith('--') ? token.slice(2, eq < 0 ? undefined : eq) : '';
    if ((VALUED as readonly string[]).includes(name)) {
      const value = eq < 0 ? argv[++i] : token.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      valued[name as (typeof VALUED)[number]] = value;
    } else if ((SWITCHES as readonly string[]).includes(name) && eq < 0) {
      switches.add(name);
    } else {
      rest.push(token);
    }
  }
  const first = rest[0];
  const toolName = first !== undefined && !first.startsWith('-') ? first : undefined;
  const stuckLimit = Number(valued['stuck-limit'] ?? '60');
  if (!Number.isInteger(stuckLimit) || stuckLimit < 1)
    throw new UsageError(
      `--stuck-limit: expected a positive integer, got ${JSON.stringify(valued['stuck-limit'])}`,
    );
  return {
    url: valued.url ?? env.MCP_URL ?? 'http://127.0.0.1:3000/mcp',
    token: valued.token ?? env.MCP_TOKEN,
    tasks: !switches.has('no-tasks'),
    resume: valued.resume,
    tool: valued.tool,
    args: valued.args,
    stuckLimit,
    json: switches.has('json'),
    help: switches.has('help'),
    toolName,
    toolTokens: toolName === undefined ? rest : rest.slice(1),
  };
}
