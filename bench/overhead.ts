// Part 1: the gateway's cost over the Temporal calls it stands for, measured side by side.
//   tools/call → CreateTaskResult (HTTP, Tasks extension declared)  vs  workflow.start
//   tasks/get (HTTP)                                                 vs  describe
// The gateway answers tools/call with the start alone (the run it just created needs no describe);
// "raw start + describe" shows what a handle would cost if it had to look the run up. The mining
// run publishes its progress to its memo, so tasks/get is one describe; "describe + query" shows
// what a poll cost when it also asked a worker (and still costs for a run that only answers the
// query). The gateway's own count of its Temporal calls says how many a poll made.
// Sides rotate order on every round, so a slow moment of the machine falls on all of them.
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { MINING_ID_PREFIX, miningTool } from '../catalog/mining/entry.ts';
import { ANONYMOUS } from '../gateway/mcp/handler.ts';
import { MCP_TASK_STATUS } from '../gateway/temporal/optional-attributes.ts';
import { MCP_PRINCIPAL, MCP_TOOL, type RunMemo } from '../gateway/temporal/run-memo.ts';
import { runDetails } from '../gateway/temporal/run-texts.ts';
import { PROTOCOL_VERSION, rpcResult, TASKS_CLIENT } from '../test/support/mcp-http.ts';
import { type Samples, scrape, summedDelta } from '../test/support/metrics-scrape.ts';
import {
  MINE_CHAIN_WORKFLOW,
  type MineChainInput,
  miningProgressQuery as progressQuery,
} from '../workflows/mining/types.ts';
import { type Distribution, distribution, timed } from './stats.ts';

/** A run that cannot finish during the bench (about 2^36 hashes), parked anyway. */
export const PARKED_ARGS = { difficulty: 36, blocks: 1, data: 'bench' };
const PARKED_INPUT: MineChainInput = { difficulty: 36, blocks: 1, data: 'bench' };

export interface OverheadResult {
  createViaGateway: Distribution;
  rawStart: Distribution;
  /** The same start through a bare HTTP front process (bare-proxy.ts): the floor of any gateway. */
  bareProxyStart: Distribution;
  rawStartDescribe: Distribution;
  getViaGateway: Distribution;
  rawDescribe: Distribution;
  rawDescribeQuery: Distribution;
  /** Temporal calls the gateway made per tasks/get (its metrics, over the measured polls). */
  callsPerPoll: { describe: number; query: number };
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

/** What the gateway records for the bench's requests: the client and revision they name. */
const RAW_RUN: Omit<RunMemo, 'createdAt'> = {
  tool: 'start_mining',
  arguments: PARKED_ARGS,
  principal: ANONYMOUS,
  'mcp.progress': {},
  origin: {
    clientName: TASKS_CLIENT.clientInfo.name,
    clientVersion: TASKS_CLIENT.clientInfo.version,
    protocolVersion: PROTOCOL_VERSION,
    userAgent: 'node',
  },
};

/**
 * The start the gateway makes, made directly: same workflow, id length, memo, search attributes and
 * Web UI summary and details.
 */
export function rawStart(client: Client, taskQueue: string) {
  const workflowId = `${MINING_ID_PREFIX}-${randomBytes(24).toString('base64url')}`;
  const { tool, principal } = RAW_RUN;
  return client.workflow.start(MINE_CHAIN_WORKFLOW, {
    workflowId,
    taskQueue,
    args: [PARKED_INPUT],
    memo: { ...RAW_RUN },
    typedSearchAttributes: [
      { key: MCP_TOOL, value: tool },
      { key: MCP_PRINCIPAL, value: principal },
      { key: MCP_TASK_STATUS, value: 'working' },
    ],
    staticSummary: miningTool({ taskQueue: '', waitBudgetMs: 0 }).presentation.summary(
      tool,
      PARKED_ARGS,
      principal,
    ),
    staticDetails: runDetails(RAW_RUN),
  });
}

async function rawDescribeQuery(client: Client, workflowId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  await handle.describe();
  await handle.query(progressQuery);
}

async function rawDescribe(client: Client, workflowId: string): Promise<void> {
  await client.workflow.getHandle(workflowId).describe();
}

/** Runs the sides of one round in an order that rotates with the round number. */
async function rotated(round: number, sides: (() => Promise<unknown>)[]): Promise<void> {
  for (let k = 0; k < sides.length; k++)
    await (sides[(round + k) % sides.length] as () => Promise<unknown>)();
}

/** POSTs to the bare proxy and checks that it answered a run id. */
async function proxiedStart(proxy: URL): Promise<void> {
  const response = await fetch(proxy, { method: 'POST', body: '{}' });
  const answer = (await response.json()) as { workflowId?: string; error?: string };
  if (!response.ok || !answer.workflowId) throw new Error(`bare proxy: ${answer.error ?? response.status}`);
}

export async function measureOverhead(options: {
  url: URL;
  /** The bare HTTP front (bare-proxy.ts) on the same task queue. */
  bareProxy: URL;
  client: Client;
  taskQueue: string;
  calls: number;
  warmup: number;
}): Promise<OverheadResult> {
  const { url, client, taskQueue, calls, warmup } = options;
  const s = {
    create: [] as number[],
    start: [] as number[],
    startDescribe: [] as number[],
    proxied: [] as number[],
  };
  const taskIds: string[] = [];
  for (let round = 0; round < warmup + calls; round++) {
    const keep = round >= warmup;
    const sides: (() => Promise<unknown>)[] = [
      async () => taskIds.push(await timed(keep ? s.create : [], () => createTask(url))),
      () => timed(keep ? s.start : [], () => rawStart(client, taskQueue)),
    ];
    // The breakdown sides run every other round: they explain the ratio, they are not the ratio.
    if (round % 2 === 0) {
      sides.push(() =>
        timed(keep ? s.startDescribe : [], async () => {
          const handle = await rawStart(client, taskQueue);
          await handle.describe();
        }),
      );
    } else {
      sides.push(() => timed(keep ? s.proxied : [], () => proxiedStart(options.bareProxy)));
    }
    await rotated(round, sides);
  }
  const g = { get: [] as number[], describe: [] as number[], describeQuery: [] as number[] };
  let before: Samples = new Map();
  for (let round = 0; round < warmup + calls; round++) {
    const keep = round >= warmup;
    if (round === warmup) before = await scrape(url.origin);
    const taskId = taskIds[round % taskIds.length] as string;
    const sides: (() => Promise<unknown>)[] = [
      () => timed(keep ? g.get : [], () => getTask(url, taskId)),
      () => timed(keep ? g.describe : [], () => rawDescribe(client, taskId)),
    ];
    if (round % 2 === 0)
      sides.push(() => timed(keep ? g.describeQuery : [], () => rawDescribeQuery(client, taskId)));
    await rotated(round, sides);
  }
  const after = await scrape(url.origin);
  const metric = 'mcp_gateway_temporal_request_duration_seconds_count';
  const perPoll = (operation: string) => summedDelta(before, after, metric, { operation }) / calls;
  return {
    createViaGateway: distribution(s.create),
    rawStart: distribution(s.start),
    bareProxyStart: distribution(s.proxied),
    rawStartDescribe: distribution(s.startDescribe),
    getViaGateway: distribution(g.get),
    rawDescribe: distribution(g.describe),
    rawDescribeQuery: distribution(g.describeQuery),
    callsPerPoll: { describe: perPoll('describe'), query: perPoll('query') },
  };
}
