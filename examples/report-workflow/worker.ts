// A worker of your own for buildReport, on the task queue `reports` (the one catalog.yaml names):
//   node --import tsx examples/report-workflow/worker.ts
// TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE as for the gateway (default localhost:7233, default).
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
// In this repository the package is the project itself: the alias points the workflow's import of
// `temporal-mcp-gateway/workflow` at the sources. A project that installed the package drops it.
import { WORKFLOW_PACKAGE_BUNDLER } from '../../worker/options.ts';

export const TASK_QUEUE = 'reports';

const address = process.env.TEMPORAL_ADDRESS || 'localhost:7233';
const connection = await NativeConnection.connect({ address });
try {
  const worker = await Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: TASK_QUEUE,
    workflowsPath: fileURLToPath(new URL('./report.ts', import.meta.url)), // bundled at start
    bundlerOptions: WORKFLOW_PACKAGE_BUNDLER,
  });
  console.log(`report worker: polling task queue "${TASK_QUEUE}" at ${address}`);
  await worker.run(); // until SIGINT or SIGTERM
} finally {
  await connection.close();
}
