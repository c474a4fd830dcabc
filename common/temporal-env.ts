// Where Temporal is, read the way the Temporal CLI reads it (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TEMPORAL_API_KEY, TLS settings, temporal.toml profiles), plus this project's task queue.
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

export const DEFAULT_TASK_QUEUE = 'mcp-mining';

export interface TemporalEnv {
  address: string;
  namespace: string;
  taskQueue: string;
  connectionOptions: NativeConnectionOptions;
}

export function temporalEnv(env: NodeJS.ProcessEnv = process.env): TemporalEnv {
  const loaded = loadClientConnectConfig({ overrideEnvVars: env as Record<string, string> });
  const address = env.TEMPORAL_ADDRESS || loaded.connectionOptions.address || 'localhost:7233';
  return {
    address,
    namespace: env.TEMPORAL_NAMESPACE || loaded.namespace || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    connectionOptions: { ...loaded.connectionOptions, address },
  };
}
