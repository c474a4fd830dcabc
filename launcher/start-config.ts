// What `npm start` runs, read from the environment: a Temporal dev server (unless TEMPORAL_ADDRESS
// points at one already), then the worker and the gateway.
import { resolve } from 'node:path';
import { booleanSetting } from '../common/settings.ts';

export interface StartConfig {
  /** Folder for the dev server's database and the workflow bundle (MCP_DATA_DIR, `.data`). */
  dataDir: string;
  /** Undefined when TEMPORAL_ADDRESS is set: then no dev server is started. */
  devServer?: {
    dbFilename: string;
    /** Frontend gRPC port (TEMPORAL_PORT, 7233). */
    port: number;
    /** Web UI port (TEMPORAL_UI_PORT, 8233). */
    uiPort: number;
  };
  /** TEMPORAL_ADDRESS when set. */
  temporalAddress?: string;
  /** Where the gateway listens (MCP_HOST, MCP_PORT) and where `npm start` probes it. */
  mcpHost: string;
  mcpPort: number;
  /** A prebuilt workflow bundle to use instead of bundling the workflows at start. */
  workflowBundlePath?: string;
  /**
   * MCP_START_JAEGER=true: a local Jaeger (launcher/jaeger.ts) that the worker and gateway export
   * their traces to; its OTLP/HTTP port (JAEGER_OTLP_PORT, 4318) and UI port (JAEGER_UI_PORT, 16686).
   */
  jaeger?: { otlpHttpPort: number; uiPort: number; queryGrpcPort: number };
  /**
   * MCP_START_CODEC=true: payloads encrypted (the keys of MCP_CODEC_KEYS / MCP_CODEC_KEYS_FILE, or a
   * key generated once into the data folder), the gateway's codec server on, and the dev server's
   * Web UI pointed at it.
   */
  codec: boolean;
}

const START_DEFAULTS = {
  dataDir: '.data',
  temporalPort: 7233,
  temporalUiPort: 8233,
  mcpHost: '127.0.0.1',
  mcpPort: 3000,
  jaegerOtlpPort: 4318,
  jaegerUiPort: 16686,
  jaegerQueryGrpcPort: 16685,
} as const;

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65_535)
    throw new Error(`${name} must be a port number from 1 to 65535, got "${raw}"`);
  return value;
}

/** Where the Web UI finds the gateway's codec server. */
export function codecEndpoint(config: Pick<StartConfig, 'mcpHost' | 'mcpPort'>): string {
  return `http://${localHost(config.mcpHost)}:${config.mcpPort}/codec`;
}

/**
 * The settings the worker and gateway get with MCP_START_CODEC=true: the keys (`keysFile()` when the
 * environment names none; called only then), the codec server on, and the dev server's Web UI as its allowed origin
 * (both spellings of the local host a browser may use). Settings already in the environment win.
 */
export function codecEnv(
  env: NodeJS.ProcessEnv,
  uiPort: number | undefined,
  keysFile: () => string,
): NodeJS.ProcessEnv {
  const hasKeys = Boolean(env.MCP_CODEC_KEYS?.trim() || env.MCP_CODEC_KEYS_FILE?.trim());
  const origins = uiPort ? `http://localhost:${uiPort},http://127.0.0.1:${uiPort}` : '';
  return {
    ...(hasKeys ? {} : { MCP_CODEC_KEYS_FILE: keysFile() }),
    MCP_CODEC_SERVER: env.MCP_CODEC_SERVER?.trim() || 'true',
    ...(env.MCP_CODEC_CORS_ORIGINS?.trim() || !origins ? {} : { MCP_CODEC_CORS_ORIGINS: origins }),
  };
}

/**
 * The trace settings the worker and gateway get beside a local Jaeger: its OTLP endpoint, unless
 * the environment already names one. Pure.
 */
export function jaegerTraceEnv(env: NodeJS.ProcessEnv, otlpEndpoint: string): NodeJS.ProcessEnv {
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) return {};
  return { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint };
}

export function startConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): StartConfig {
  const dataDir = resolve(cwd, env.MCP_DATA_DIR?.trim() || START_DEFAULTS.dataDir);
  const temporalAddress = env.TEMPORAL_ADDRESS?.trim() || undefined;
  return {
    dataDir,
    devServer: temporalAddress
      ? undefined
      : {
          dbFilename: resolve(dataDir, 'temporal.db'),
          port: port(env, 'TEMPORAL_PORT', START_DEFAULTS.temporalPort),
          uiPort: port(env, 'TEMPORAL_UI_PORT', START_DEFAULTS.temporalUiPort),
        },
    temporalAddress,
    mcpHost: env.MCP_HOST?.trim() || START_DEFAULTS.mcpHost,
    mcpPort: port(env, 'MCP_PORT', START_DEFAULTS.mcpPort),
    workflowBundlePath: env.WORKFLOW_BUNDLE_PATH?.trim() || undefined,
    codec: booleanSetting(env, 'MCP_START_CODEC'),
    ...(booleanSetting(env, 'MCP_START_JAEGER')
      ? {
          jaeger: {
            otlpHttpPort: port(env, 'JAEGER_OTLP_PORT', START_DEFAULTS.jaegerOtlpPort),
            uiPort: port(env, 'JAEGER_UI_PORT', START_DEFAULTS.jaegerUiPort),
            queryGrpcPort: port(env, 'JAEGER_QUERY_GRPC_PORT', START_DEFAULTS.jaegerQueryGrpcPort),
          },
        }
      : {}),
  };
}

/** The host to reach a server bound to `host` from this machine (a wildcard bind → loopback). */
export function localHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The URL clients use for the MCP endpoint. */
export function mcpUrl(config: Pick<StartConfig, 'mcpHost' | 'mcpPort'>): string {
  return `http://${localHost(config.mcpHost)}:${config.mcpPort}/mcp`;
}

/**
 * Log settings for the gateway `npm start` runs: its stdout is a pipe to `npm start`, so when
 * `npm start` itself writes to a terminal it asks for readable lines (and colours, unless NO_COLOR),
 * as the gateway would choose on a terminal of its own. An explicit LOG_FORMAT is left as it is.
 */
export function gatewayLogEnv(env: NodeJS.ProcessEnv, stdoutIsTTY: boolean): NodeJS.ProcessEnv {
  if (env.LOG_FORMAT?.trim() || !stdoutIsTTY) return {};
  return { LOG_FORMAT: 'pretty', ...(env.NO_COLOR || env.FORCE_COLOR ? {} : { FORCE_COLOR: '1' }) };
}
