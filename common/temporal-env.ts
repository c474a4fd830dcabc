// Where Temporal is, read the way the Temporal CLI reads it (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TEMPORAL_API_KEY, TLS settings, temporal.toml profiles), plus this project's task queue.
import type { ConnectionOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';

export const DEFAULT_TASK_QUEUE = 'mcp-mining';

/**
 * How to reach Temporal: what the environment configuration sets, in the client's own types (the
 * package's public settings name them, so they stand on its peers: no worker types in a host app).
 * The worker's NativeConnection takes the same fields.
 */
type TemporalConnectionOptions = Pick<ConnectionOptions, 'tls' | 'metadata'> & {
  address: string;
  apiKey?: string;
};

export interface TemporalEnv {
  address: string;
  namespace: string;
  taskQueue: string;
  connectionOptions: TemporalConnectionOptions;
}

export function temporalEnv(env: NodeJS.ProcessEnv = process.env): TemporalEnv {
  const loaded = loadClientConnectConfig({ overrideEnvVars: env as Record<string, string> });
  const { tls, apiKey, metadata } = loaded.connectionOptions;
  const address = env.TEMPORAL_ADDRESS || loaded.connectionOptions.address || 'localhost:7233';
  return {
    address,
    namespace: env.TEMPORAL_NAMESPACE || loaded.namespace || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    connectionOptions: {
      address,
      ...(tls === undefined ? {} : { tls }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(metadata === undefined ? {} : { metadata }),
    },
  };
}
