// Container health check for a worker (`npm run healthcheck:worker`): exits 0 once a worker on this
// host polls the task queue, as Temporal sees it; 1 otherwise. A worker's default identity is
// `<pid>@<hostname>`, and a container's hostname is its own.
import { hostname } from 'node:os';
import { Connection } from '@temporalio/client';
import { temporalEnv } from '../common/temporal-env.ts';

const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_WORKFLOW = 1;
// Pollers stay listed for a while after they stop; a recent poll is what counts.
const RECENT_MS = 2 * 60_000;

async function check(): Promise<string> {
  const temporal = temporalEnv();
  const { address, tls, apiKey, metadata } = temporal.connectionOptions;
  const connection = await Connection.connect({
    address,
    ...(tls === undefined || tls === null ? {} : { tls }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(metadata === undefined ? {} : { metadata }),
    connectTimeout: 3_000,
  });
  try {
    const { pollers } = await connection.withDeadline(Date.now() + 3_000, () =>
      connection.workflowService.describeTaskQueue({
        namespace: temporal.namespace,
        taskQueue: { name: temporal.taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
        taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
      }),
    );
    const suffix = `@${hostname()}`;
    const mine = (pollers ?? []).find((poller) => {
      const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
      return poller.identity?.endsWith(suffix) && Date.now() - seconds * 1000 < RECENT_MS;
    });
    if (!mine) throw new Error(`no worker on ${hostname()} polls task queue "${temporal.taskQueue}"`);
    return `worker ${mine.identity} polls task queue "${temporal.taskQueue}"`;
  } finally {
    await connection.close();
  }
}

check().then(
  (message) => {
    console.log(`healthy: ${message}`);
    process.exit(0);
  },
  (err) => {
    console.error(`unhealthy: ${(err as Error).message}`);
    process.exit(1);
  },
);
