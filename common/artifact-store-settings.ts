// Which artifact store the environment names (MCP_ARTIFACT_STORE and its settings), read alike by
// the gateway and the workers, and the store it opens.
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ArtifactStore, ArtifactStoreSettings } from './artifact-store.ts';
import { LocalArtifactStore } from './local-artifact-store.ts';
import { openS3ArtifactStore } from './s3-artifact-store.ts';

const DEFAULT_S3_TIMEOUT_MS = 30_000;

const DEFAULT_ARTIFACT_DIR = join(tmpdir(), 'temporal-mcp-gateway', 'artifacts');

/**
 * The store from MCP_ARTIFACT_STORE (`local`, the default, or `s3`) and its settings; the S3
 * credentials are the standard AWS ones (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, profiles, roles).
 */
export function artifactStoreSettings(env: NodeJS.ProcessEnv): ArtifactStoreSettings {
  const kind = env.MCP_ARTIFACT_STORE?.trim() || 'local';
  if (kind === 'local') return { kind, dir: resolve(env.MCP_ARTIFACT_DIR?.trim() || DEFAULT_ARTIFACT_DIR) };
  if (kind !== 's3') throw new Error(`MCP_ARTIFACT_STORE must be "local" or "s3", got "${kind}"`);
  const bucket = env.MCP_ARTIFACT_S3_BUCKET?.trim();
  if (!bucket) throw new Error('MCP_ARTIFACT_STORE=s3 needs MCP_ARTIFACT_S3_BUCKET');
  const endpoint = env.MCP_ARTIFACT_S3_ENDPOINT?.trim() || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint)) {
    throw new Error(`MCP_ARTIFACT_S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  }
  const pathStyle = env.MCP_ARTIFACT_S3_FORCE_PATH_STYLE?.trim().toLowerCase();
  if (pathStyle && !['true', 'false'].includes(pathStyle)) {
    throw new Error(`MCP_ARTIFACT_S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}"`);
  }
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return {
    kind,
    bucket,
    ...(accessKeyId && secretAccessKey
      ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } }
      : {}),
    prefix: env.MCP_ARTIFACT_S3_PREFIX?.trim() ?? 'artifacts/',
    ...(endpoint ? { endpoint } : {}),
    region: env.MCP_ARTIFACT_S3_REGION?.trim() || env.AWS_REGION?.trim() || 'us-east-1',
    timeoutMs: s3TimeoutMs(env.MCP_ARTIFACT_S3_TIMEOUT_MS),
    // An S3-compatible endpoint rarely has a DNS name per bucket: path style unless told otherwise.
    forcePathStyle: pathStyle ? pathStyle === 'true' : endpoint !== undefined,
  };
}

/** MCP_ARTIFACT_S3_TIMEOUT_MS: 30 s unless set, between 1 s and 10 min. */
function s3TimeoutMs(raw: string | undefined): number {
  const text = raw?.trim();
  if (!text) return DEFAULT_S3_TIMEOUT_MS;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1000 || value > 600_000) {
    throw new Error(
      `MCP_ARTIFACT_S3_TIMEOUT_MS must be a whole number of ms from 1000 to 600000, got "${text}"`,
    );
  }
  return value;
}

/** The store `settings` name; the S3 one loads the AWS SDK (an optional peer of the package) here. */
export async function openArtifactStore(settings: ArtifactStoreSettings): Promise<ArtifactStore> {
  return settings.kind === 'local' ? new LocalArtifactStore(settings.dir) : openS3ArtifactStore(settings);
}
