// The gateway's Temporal client. The connection is lazy, so the gateway starts (and /readyz says
// 503) while Temporal is down, and gets back in touch by itself when Temporal returns.
import { Client, Connection } from '@temporalio/client';
import type { TemporalEnv } from '../../lib/temporal-env.ts';
import { temporalMetricsInterceptor } from './metrics-interceptor.ts';

export function createTemporalClient(temporal: TemporalEnv, connectTimeoutMs: number): Client {
  const { address, tls, apiKey, metadata } = temporal.connectionOptions;
  const connection = Connection.lazy({
    address,
    ...(tls === undefined || tls === null ? {} : { tls }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(metadata === undefined ? {} : { metadata }),
    connectTimeout: connectTimeoutMs,
  });
  return new Client({
    connection,
    namespace: temporal.namespace,
    interceptors: { workflow: [temporalMetricsInterceptor()] },
    // A progress query on a closed run is refused by Temporal at once instead of replayed on a worker.
    workflow: { queryRejectCondition: 'NOT_OPEN' },
  });
}
