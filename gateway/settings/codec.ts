// Payload encryption (MCP_CODEC_KEYS, read by common/codec-settings.ts as the worker reads it) and,
// with MCP_CODEC_SERVER=true, the codec server for the Web UI: MCP_CODEC_CORS_ORIGINS (the Web UI's
// origins), MCP_CODEC_PRINCIPALS (who may use it, when callers authenticate; every principal when unset).
import * as z from 'zod/v4';
import { codecFromEnv } from '../../common/codec-settings.ts';
import type { EncryptionCodec } from '../../common/payload-codec.ts';
import { boolean, checked, parseSettings, setting } from '../../common/settings.ts';
import type { CodecServerSettings } from '../http/codec-endpoint.ts';
import { PRINCIPAL_PATTERN } from '../http/oauth-settings.ts';

export interface CodecSettings {
  /** The payload codec of the Temporal client (MCP_CODEC_KEYS); absent: payloads in clear. */
  codec?: EncryptionCodec;
  /** The codec server for the Web UI (MCP_CODEC_SERVER=true); absent: /codec/* is 404. */
  codecServer?: CodecServerSettings;
}

/** Items separated by commas or whitespace. */
function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A browser origin as the Origin header carries it: scheme, host and port, nothing else. */
function origin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`MCP_CODEC_CORS_ORIGINS: "${text}" is not an origin (e.g. http://localhost:8233)`);
  }
  if (!/^https?:$/.test(url.protocol) || url.origin !== text.replace(/\/$/, '')) {
    throw new Error(`MCP_CODEC_CORS_ORIGINS: "${text}" is not an origin (scheme://host[:port], no path)`);
  }
  return url.origin;
}

const serverSchema = z.object({
  MCP_CODEC_PRINCIPALS: setting('MCP_CODEC_PRINCIPALS', (raw) =>
    list(raw).map((principal) => {
      if (!PRINCIPAL_PATTERN.test(principal))
        throw new Error(`MCP_CODEC_PRINCIPALS: "${principal}" is not a valid principal`);
      return principal;
    }),
  ),
  MCP_CODEC_CORS_ORIGINS: setting('MCP_CODEC_CORS_ORIGINS', (raw) => list(raw).map(origin)),
});

/** The codec, and the codec server of `namespace` when it is on. */
function codecSchema(namespace: string) {
  return z.looseObject({ MCP_CODEC_SERVER: boolean('MCP_CODEC_SERVER') }).transform((env, ctx) =>
    checked(ctx, (): CodecSettings => {
      const codec = codecFromEnv(env as NodeJS.ProcessEnv);
      if (!env.MCP_CODEC_SERVER) return codec ? { codec } : {};
      if (!codec)
        throw new Error('MCP_CODEC_SERVER=true needs the codec keys (MCP_CODEC_KEYS or MCP_CODEC_KEYS_FILE)');
      const server = parseSettings(serverSchema, env);
      const principals = server.MCP_CODEC_PRINCIPALS;
      return {
        codec,
        codecServer: {
          namespace,
          corsOrigins: server.MCP_CODEC_CORS_ORIGINS,
          ...(principals.length ? { principals } : {}),
        },
      };
    }),
  );
}

export function codecSettingsFromEnv(env: NodeJS.ProcessEnv, namespace: string): CodecSettings {
  return parseSettings(codecSchema(namespace), env);
}
