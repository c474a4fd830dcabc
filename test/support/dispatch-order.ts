// The order in which a Temporal server's matching hands out workflow tasks: runs started with the
// priorities the gateway gives (fairness key, priority key) on a queue no worker polls, so they wait
// in its backlog, then polled one by one. Whether the server honours the keys is read off that order.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowStartOptions } from '@temporalio/client';
import protos from '@temporalio/proto';
import { pollUntil } from '../../common/poll.ts';

type Priority = NonNullable<WorkflowStartOptions['priority']>;

const { TaskQueueKind, TaskQueueType } = protos.temporal.api.enums.v1;

/** Each run's label, in the order matching dispatched their first workflow tasks. */
export async function dispatchOrder(
  client: Client,
  runs: readonly { label: string; priority: Priority }[],
): Promise<string[]> {
  const taskQueue = `dispatch-order-${randomUUID()}`;
  const queue = { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL };
  const namespace = client.options.namespace;
  const labels = new Map<string, string>();
  const handles = [];
  // One after another: their order of arrival is the order first come, first served would keep.
  for (const { label, priority } of runs) {
    const workflowId = `${taskQueue}-${labels.size}`;
    labels.set(workflowId, label);
    handles.push(await client.workflow.start('dispatchOrderProbe', { taskQueue, workflowId, priority }));
  }
  try {
    // Every task in the backlog before the first poll, or the first would be matched as it arrives.
    await pollUntil(
      async () => {
        const { stats } = await client.workflowService.describeTaskQueue({
          namespace,
          taskQueue: queue,
          taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
          reportStats: true,
        });
        return Number(stats?.approximateBacklogCount ?? 0) >= runs.length ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const order: string[] = [];
    while (order.length < runs.length) {
      const task = await client.withDeadline(Date.now() + 30_000, () =>
        client.workflowService.pollWorkflowTaskQueue({
          namespace,
          taskQueue: queue,
          identity: 'dispatch-order',
        }),
      );
      const workflowId = task.workflowExecution?.workflowId;
      if (!workflowId) throw new Error(`no task within 30 s after ${order.length} of ${runs.length}`);
      order.push(labels.get(workflowId) ?? workflowId);
    }
    return order;
  } finally {
    await Promise.all(handles.map((handle) => handle.terminate('dispatch order read').catch(() => {})));
  }
}
