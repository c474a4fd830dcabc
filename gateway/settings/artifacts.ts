// The artifact store workers write large outputs to (MCP_ARTIFACT_STORE and its settings, read by
// common/artifact-store.ts as the worker reads them), and the largest artifact resources/read serves.
import * as z from 'zod/v4';
import type { ArtifactStoreSettings } from '../../common/artifact-store.ts';
import { artifactStoreSettings } from '../../common/artifact-store-settings.ts';
import { checked, integer, parseSettings } from '../../common/settings.ts';
import type { ReadLimits } from '../mcp/read-budget.ts';
import { DEFAULTS } from './defaults.ts';

export interface ArtifactSettings {
  store: ArtifactStoreSettings;
  readMaxBytes: number;
  readLimits: ReadLimits;
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
    // Defaults that keep a 2-core, 1 GB gateway alive under any number of reads (docs/artifacts.md).
    MCP_ARTIFACT_READS_MAX: integer('MCP_ARTIFACT_READS_MAX', DEFAULTS.artifactReadsMax, 1, 10_000),
    MCP_ARTIFACT_READS_PER_PRINCIPAL: integer(
      'MCP_ARTIFACT_READS_PER_PRINCIPAL',
      DEFAULTS.artifactReadsPerPrincipal,
      1,
      10_000,
    ),
    MCP_ARTIFACT_READ_BYTES_IN_FLIGHT: integer(
      'MCP_ARTIFACT_READ_BYTES_IN_FLIGHT',
      DEFAULTS.artifactReadBytesInFlight,
      1024,
      16 * 1024 * 1024 * 1024,
    ),
  })
  .transform((env, ctx) =>
    checked(ctx, (): ArtifactSettings => {
      // A largest artifact the bytes in flight could never hold would be refused for ever.
      if (env.MCP_ARTIFACT_READ_BYTES_IN_FLIGHT < env.MCP_ARTIFACT_READ_MAX_BYTES) {
        throw new Error(
          `MCP_ARTIFACT_READ_BYTES_IN_FLIGHT (${env.MCP_ARTIFACT_READ_BYTES_IN_FLIGHT}) must be at least ` +
            `MCP_ARTIFACT_READ_MAX_BYTES (${env.MCP_ARTIFACT_READ_MAX_BYTES})`,
        );
      }
      return {
        store: artifactStoreSettings(env as NodeJS.ProcessEnv),
        readMaxBytes: env.MCP_ARTIFACT_READ_MAX_BYTES,
        readLimits: {
          maxReads: env.MCP_ARTIFACT_READS_MAX,
          maxReadsPerPrincipal: env.MCP_ARTIFACT_READS_PER_PRINCIPAL,
          maxBytesInFlight: env.MCP_ARTIFACT_READ_BYTES_IN_FLIGHT,
        },
      };
    }),
  );

export function artifactsFromEnv(env: NodeJS.ProcessEnv): ArtifactSettings {
  return parseSettings(artifactsSchema, env);
}
