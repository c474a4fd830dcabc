// The artifact store workers write large outputs to (MCP_ARTIFACT_STORE and its settings, read by
// common/artifact-store.ts as the worker reads them), and the largest artifact resources/read serves.
import * as z from 'zod/v4';
import { type ArtifactStoreSettings, artifactStoreSettings } from '../../common/artifact-store.ts';
import { checked, integer, parseSettings } from '../../common/settings.ts';
import { DEFAULTS } from './defaults.ts';

export interface ArtifactSettings {
  store: ArtifactStoreSettings;
  readMaxBytes: number;
}

const artifactsSchema = z
  .looseObject({
    // A read holds the bytes about five to six times over (buffer, base64, JSON): docs/artifacts.md.
    MCP_ARTIFACT_READ_MAX_BYTES: integer(
      'MCP_ARTIFACT_READ_MAX_BYTES',
      DEFAULTS.artifactReadMaxBytes,
      1024,
      256 * 1024 * 1024,
    ),
  })
  .transform((env, ctx) =>
    checked(
      ctx,
      (): ArtifactSettings => ({
        store: artifactStoreSettings(env as NodeJS.ProcessEnv),
        readMaxBytes: env.MCP_ARTIFACT_READ_MAX_BYTES,
      }),
    ),
  );

export function artifactsFromEnv(env: NodeJS.ProcessEnv): ArtifactSettings {
  return parseSettings(artifactsSchema, env);
}
