// Where the gateway listens (MCP_HOST, MCP_PORT), what one connection may send it, how long an
// answer waits for it to read, and the rule that keeps a gateway without authentication on loopback.
import * as z from 'zod/v4';
import { integer, parseSettings, text } from '../../common/settings.ts';
import { isLoopback } from '../http/loopback.ts';
import { DEFAULTS } from './defaults.ts';

export interface ListenSettings {
  host: string;
  port: number;
  /** Largest request body accepted on /mcp (413 above it). */
  bodyLimitBytes: number;
  /** Longest a client may take to send a whole request, headers and body (408 after it). */
  requestTimeoutMs: number;
  /** Longest an answer's write may wait for its client to read (the socket to drain); then it is cut. */
  writeTimeoutMs: number;
  /** Open connections at most; more are refused at once. */
  maxConnections: number;
}

const listenSchema = z
  .object({
    MCP_HOST: text('MCP_HOST'),
    MCP_PORT: integer('MCP_PORT', DEFAULTS.port, 0, 65_535),
    MCP_MAX_BODY_BYTES: integer('MCP_MAX_BODY_BYTES', DEFAULTS.bodyLimitBytes, 1024, 16 * 1024 * 1024),
    MCP_REQUEST_TIMEOUT_MS: integer('MCP_REQUEST_TIMEOUT_MS', DEFAULTS.requestTimeoutMs, 1_000, 600_000),
    MCP_WRITE_TIMEOUT_MS: integer('MCP_WRITE_TIMEOUT_MS', DEFAULTS.writeTimeoutMs, 1_000, 600_000),
    MCP_MAX_CONNECTIONS: integer('MCP_MAX_CONNECTIONS', DEFAULTS.maxConnections, 1, 1_000_000),
  })
  .transform(
    (env): ListenSettings => ({
      host: env.MCP_HOST ?? DEFAULTS.host,
      port: env.MCP_PORT,
      bodyLimitBytes: env.MCP_MAX_BODY_BYTES,
      requestTimeoutMs: env.MCP_REQUEST_TIMEOUT_MS,
      writeTimeoutMs: env.MCP_WRITE_TIMEOUT_MS,
      maxConnections: env.MCP_MAX_CONNECTIONS,
    }),
  );

export function listenFromEnv(env: NodeJS.ProcessEnv): ListenSettings {
  return parseSettings(listenSchema, env);
}

/** Startup check: without tokens or OAuth the gateway may only listen on loopback. */
export function assertSafeBind(host: string, tokens: ReadonlyMap<string, string>, oauth = false): void {
  if (tokens.size === 0 && !oauth && !isLoopback(host)) {
    throw new Error(
      `refusing to listen on ${host} without authentication: set MCP_AUTH_TOKENS (principal:token pairs) ` +
        'or MCP_AUTH_TOKENS_FILE, or MCP_OAUTH_ISSUER and MCP_OAUTH_AUDIENCE, or bind to 127.0.0.1',
    );
  }
}
