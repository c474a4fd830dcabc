// A worker that runs mineChain workflows but no activities: every run it starts stays Running with
// its first block scheduled and never picked up. Tasks that are really running yet use no CPU, so
// the gateway and its peer are measured on an idle machine, not against a busy miner.
//
//   TEMPORAL_ADDRESS=... TEMPORAL_TASK_QUEUE=... tsx bench/parked-worker.ts
import { NativeConnection, Worker } from '@temporalio/worker';
import { temporalEnv } from '../common/temporal-env.ts';
import { workerSettings, workflowSource } from '../worker/options.ts';

const temporal = temporalEnv();
const settings = workerSettings();
const connection = await NativeConnection.connect(temporal.connectionOptions);
const worker = await Worker.create({
  connection,
  namespace: temporal.namespace,
  taskQueue: temporal.taskQueue,
  ...workflowSource(settings),
  // MCP_CODEC_KEYS: the payloads it reads and writes are encrypted, as the real worker's are.
  ...(settings.codec ? { dataConverter: { payloadCodecs: [settings.codec] } } : {}),
});
console.log(`parked worker: polling task queue "${temporal.taskQueue}" (workflows only)`);
await worker.run();
await connection.close();
