// The worker process: runs mineChain workflows and mineBlock activities from the task queue.
import { NativeConnection, Worker } from '@temporalio/worker';
import * as activities from '../activities/index.ts';
import { closeSharedNoncePool } from '../activities/pow/nonce-pool.ts';
import { describeCodec } from '../common/codec-settings.ts';
import { retryUntil } from '../common/poll.ts';
import { temporalEnv } from '../common/temporal-env.ts';
import { startTracing, traceDestination } from '../common/tracing.ts';
import { workerSettings, workflowSource } from './options.ts';
import { tracingActivityInterceptors, tracingSinks } from './tracing.ts';

async function main(): Promise<void> {
  const temporal = temporalEnv();
  const settings = workerSettings();
  const tracing = await startTracing('mcp-worker');
  let connection: NativeConnection;
  try {
    // Backing off from 100 ms to 2 s between attempts.
    connection = await retryUntil(() => NativeConnection.connect(temporal.connectionOptions), {
      timeoutMs: settings.connectTimeoutMs,
      maxIntervalMs: 2_000,
    });
  } catch (err) {
    console.error(
      `worker: cannot reach Temporal at ${temporal.address} after ${settings.connectTimeoutMs} ms: ${(err as Error).message}`,
    );
    process.exit(1);
  }
  try {
    const source = workflowSource(settings);
    const worker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      ...source,
      interceptors: {
        ...('interceptors' in source ? source.interceptors : {}),
        activity: tracingActivityInterceptors(tracing),
      },
      sinks: tracingSinks(tracing),
      activities,
      // A payload it cannot decrypt fails the workflow or activity task (retried, shown in the Web
      // UI with the key id), never the process, and is never read as plaintext.
      ...(settings.codec ? { dataConverter: { payloadCodecs: [settings.codec] } } : {}),
      maxConcurrentActivityTaskExecutions: settings.maxConcurrentActivities,
      // No eager activities: a slot freed by a block would go straight to the next block of the same
      // run, past the task queue and its fairness, and one principal's flood would keep every slot.
      maxEagerActivityReservationsPerWorkflowTask: 0,
      // Heartbeats leave at most once a second, so a cancellation reaches a block within ~1 s.
      maxHeartbeatThrottleInterval: '1s',
      shutdownGraceTime: '10s',
    });
    console.log(
      `worker: polling task queue "${temporal.taskQueue}" in namespace "${temporal.namespace}" at ${temporal.address}`,
    );
    console.log(`worker: ${describeCodec(settings.codec?.keys)}`);
    console.log(
      `worker: the miner's threads run at nice ${settings.minerNice} (MINER_NICE), below the rest of the host`,
    );
    if (tracing) console.log(`worker: traces to ${traceDestination()} as service "${tracing.serviceName}"`);
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown that resolves run().
    await worker.run();
    console.log('worker: stopped');
  } finally {
    await closeSharedNoncePool();
    await connection.close();
    await tracing?.shutdown();
  }
}

main().catch((err) => {
  console.error('worker: fatal:', err);
  process.exit(1);
});
