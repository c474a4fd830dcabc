// What `npm start` prints once everything is up: where things are, which catalog and tools the
// gateway serves, and a call to try.
import { join, resolve } from 'node:path';
import type { Jaeger } from './jaeger.ts';
import type { LocalTemporal } from './local-temporal.ts';
import { codecEndpoint, mcpUrl, type StartConfig } from './start-config.ts';

/** The part of a catalog entry the banner shows. */
export interface BannerTool {
  name: string;
  inputSchema: { properties?: Record<string, { type?: unknown }>; required?: string[] };
  companions: { result: string; cancel: string; respond?: string };
}

/** Tool arguments `npm run call` takes as flags (client/cli.ts), with values that make a short run. */
const CALL_FLAGS: Record<string, string> = { difficulty: '22', blocks: '3', data: 'hello' };
/** The endpoint `npm run call` uses unless told otherwise (client/cli.ts). */
const CALL_DEFAULT_URL = 'http://127.0.0.1:3000/mcp';

/** "built-in", or the catalog file as the gateway (running in `cwd`) reads it. */
export function catalogLabel(toolsFile: string | undefined, cwd: string): string {
  return toolsFile ? resolve(cwd, toolsFile) : 'built-in';
}

/** One row per tool: its name, then the companion tools it comes with. */
export function toolRows(tools: BannerTool[]): string[] {
  const width = Math.max(0, ...tools.map((tool) => tool.name.length));
  return tools.map((tool) => {
    const { result, cancel, respond } = tool.companions;
    return `${tool.name.padEnd(width)}  (with ${[result, cancel, ...(respond ? [respond] : [])].join(', ')})`;
  });
}

/**
 * A `npm run call` line for the first tool whose required arguments the call CLI can pass as
 * flags; undefined when there is none.
 */
export function exampleCall(tools: BannerTool[], endpoint: string, withToken: boolean): string | undefined {
  for (const tool of tools) {
    const properties = tool.inputSchema.properties ?? {};
    const required = tool.inputSchema.required ?? [];
    if (!required.every((name) => name in CALL_FLAGS)) continue;
    const flags = Object.keys(CALL_FLAGS)
      .filter(
        (name) => name in properties && (required.includes(name) || properties[name]?.type !== 'string'),
      )
      .flatMap((name) => [`--${name}`, CALL_FLAGS[name] as string]);
    return [
      ...(withToken ? ['MCP_TOKEN=<your token>'] : []),
      'npm run call --',
      tool.name,
      ...flags,
      ...(endpoint === CALL_DEFAULT_URL ? [] : ['--url', endpoint]),
    ].join(' ');
  }
  return undefined;
}

/** What the banner reports: the start's settings and what came up. */
export interface StartedStack {
  config: StartConfig;
  /** The repository, where the gateway runs. */
  root: string;
  /** The Temporal frontend the worker and the gateway use. */
  address: string;
  temporal?: Pick<LocalTemporal, 'uiUrl' | 'description'>;
  jaeger?: Pick<Jaeger, 'uiUrl'>;
  /** The catalog as the gateway reads it (undefined if it cannot be read). */
  served?: { toolsFile?: string; tools: BannerTool[]; authTokens: { size: number } };
}

/** The catalog's lines: the file, a row per tool, and a call to try. */
function catalogLines(served: NonNullable<StartedStack['served']>, endpoint: string, root: string): string[] {
  const withToken = served.authTokens.size > 0;
  const lines = [
    `  Catalog          ${catalogLabel(served.toolsFile, root)}${served.toolsFile ? '' : ' (MCP_TOOLS_FILE unset)'}`,
  ];
  toolRows(served.tools).forEach((row, i) => {
    lines.push(`  ${(i === 0 ? 'Tools' : '').padEnd(17)}${row}`);
  });
  const example = exampleCall(served.tools, endpoint, withToken);
  if (example) lines.push('Try it (in another terminal):', `  ${example}`);
  return lines;
}

/** The lines `npm start` prints once everything is ready. */
export function readyBanner({ config, root, address, temporal, jaeger, served }: StartedStack): string[] {
  const endpoint = mcpUrl(config);
  const lines = ['ready', `  MCP endpoint     ${endpoint}`];
  if (temporal) lines.push(`  Temporal Web UI  ${temporal.uiUrl}`);
  if (jaeger) lines.push(`  Traces (Jaeger)  ${jaeger.uiUrl}`);
  if (config.codec) {
    lines.push(
      `  Codec server     ${codecEndpoint(config)} (payloads encrypted; the Web UI decodes through it)`,
    );
    if (!process.env.MCP_CODEC_KEYS?.trim() && !process.env.MCP_CODEC_KEYS_FILE?.trim())
      lines.push(`  Codec keys       ${join(config.dataDir, 'codec-keys')}`);
  }
  lines.push(
    `  Temporal         ${address}${temporal ? ` (${temporal.description})` : ' (TEMPORAL_ADDRESS)'}`,
  );
  if (config.devServer) lines.push(`  Data folder      ${config.dataDir}`);
  if (served && served.authTokens.size > 0) lines.push('  Auth             bearer tokens (MCP_AUTH_TOKENS)');
  if (served) lines.push(...catalogLines(served, endpoint, root));
  lines.push('Press Ctrl-C to stop.');
  return lines;
}
