// Part 1: the gateway's cost over the Temporal calls it stands for, measured side by side.
//   tools/call → CreateTaskResult (HTTP, Tasks extension declared)  vs  workflow.start
//   tasks/get (HTTP)                                                 vs  describe + progress query
// The gateway answers tools/call with a start, then a describe for the task's times and status, so
// a third side, "raw start + describe", shows what the gateway adds over those same calls.
// Sides rotate order on every round, so a slow moment of the machine falls on all of them.
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { TASK_ID_PREFIX } from '../gateway/task-id.ts';
import { MCP_PRINCIPAL, MCP_TOOL } from '../gateway/temporal-mining.ts';
import { rpcResult } from '../test/support/mcp-http.ts';
import { MINE_CHAIN_WORKFLOW, type MineChainInput, progressQuery } from '../workflows/contract.ts';
import { type Distribution, distribution, timed } from './stats.ts';

/** A run that cannot finish during the bench (about 2^36 hashes), parked anyway. */
export const PARKED_ARGS = { difficulty: 36, blocks: 1, data: 'bench' };
const PARKED_INPUT: MineChainInput = { difficulty: 36, blocks: 1, data: 'bench' };

export interface OverheadResult {
  createViaGateway: Distribution;
  rawStart: Distribution;
  rawStartDescribe: Distribution;
  getViaGateway: Distribution;
  rawDescribeQuery: Distribution;
}

export async function createTask(url: URL): Promise<string> {
  const created = await rpcResult(url, 'tools/call', { name: 'start_mining', arguments: PARKED_ARGS });
  if (created.resultType !== 'task') throw new Error(`expected a task, got ${JSON.stringify(created)}`);
  return String(created.taskId);
}

export async function getTask(url: URL, taskId: string): Promise<void> {
  const task = await rpcResult(url, 'tasks/get', { taskId });
  if (task.status !== 'working') throw new Error(`expected a working task, got ${JSON.stringify(task)}`);
}

/** The start the gateway makes, made directly: same workflow, id scheme, memo and search attributes. */
function rawStart(client: Client, taskQueue: string) {
  const workflowId = `${TASK_ID_PREFIX}${randomBytes(24).toString('base64url')}`;
  return client.workflow.start(MINE_CHAIN_WORKFLOW, {
    workflowId,
    taskQueue,
    args: [PARKED_INPUT],
    memo: { tool: 'start_mining', arguments: PARKED_ARGS, principal: 'anonymous', input: PARKED_INPUT },
    typedSearchAttributes: [
      { key: MCP_TOOL, value: 'start_mining' },
      { key: MCP_PRINCIPAL, value: 'anonymous' },
    ],
    staticSummary: 'start_mining: 1 block(s) at difficulty 36 for anonymous',
  });
}

async function rawDescribeQuery(client: Client, workflowId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  await handle.describe();
  await handle.query(progressQuery);
}

/** Runs the sides of one round in an order that rotates with the round number. */
async function rotated(round: number, sides: (() => Promise<unknown>)[]): Promise<void> {
  for (let k = 0; k < sides.length; k++)
    await (sides[(round + k) % sides.length] as () => Promise<unknown>)();
}

export async function measureOverhead(options: {
  url: URL;
  client: Client;
  taskQueue: string;
  calls: number;
  warmup: number;
}): Promise<OverheadResult> {
  const { url, client, taskQueue, calls, warmup } = options;
  const s = { create: [] as number[], start: [] as number[], startDescribe: [] as number[] };
  const taskIds: string[] = [];
  for (let round = 0; round < warmup + calls; round++) {
    const keep = round >= warmup;
    const sides: (() => Promise<unknown>)[] = [
      async () => taskIds.push(await timed(keep ? s.create : [], () => createTask(url))),
      () => timed(keep ? s.start : [], () => rawStart(client, taskQueue)),
    ];
    // The breakdown side runs every other round: it explains the ratio, it is not the ratio.
    if (round % 2 === 0) {
      sides.push(() =>
        timed(keep ? s.startDescribe : [], async () => {
          const handle = await rawStart(client, taskQueue);
          await handle.describe();
        }),
      );
    }
    await rotated(round, sides);
  }
  const g = { get: [] as number[], raw: [] as number[] };
  for (let round = 0; round < warmup + calls; round++) {
    const keep = round >= warmup;
    const taskId = taskIds[round % taskIds.length] as string;
    await rotated(round, [
      () => timed(keep ? g.get : [], () => getTask(url, taskId)),
      () => timed(keep ? g.raw : [], () => rawDescribeQuery(client, taskId)),
    ]);
  }
  return {
    createViaGateway: distribution(s.create),
    rawStart: distribution(s.start),
    rawStartDescribe: distribution(s.startDescribe),
    getViaGateway: distribution(g.get),
    rawDescribeQuery: distribution(g.raw),
  };
}
