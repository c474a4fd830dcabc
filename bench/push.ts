// Part 6: pushed task status against polling, side by side on one gateway process. Each round
// starts a short chain as a task (wait budget 0) and follows it to completion once by push (a
// subscriptions/listen stream) and once by tasks/get polls at the advertised interval, sides in
// rotating order: the completion notice (arrival − the run's close time) and the Temporal calls
// the gateway made per completed task. Then 200 open subscriptions on parked tasks: the gateway's
// RSS, and every stream and long poll gone once they close.
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { rpcResult } from '../test/support/mcp-http.ts';
import { delta, type Samples, scrape } from '../test/support/metrics-scrape.ts';
import { listen } from '../test/support/sse-listen.ts';
import { eventually } from '../test/support/temporal.ts';
import { inLanes } from './lanes.ts';
import { RssSampler } from './rss-sampler.ts';
import { type Distribution, distribution } from './stats.ts';

/** Parked tasks started at once before the subscriptions open. */
const PARKED_STARTS_IN_FLIGHT = 20;

const CHAIN = { difficulty: 14, blocks: 2 };

export interface PushResult {
  pollIntervalMs: number;
  push: Distribution;
  poll: Distribution;
  /** Temporal calls the gateway made per completed task (start excluded), mean. */
  callsPerTask: { push: number; poll: number };
  subscriptions: {
    count: number;
    rssBeforeMb: number;
    rssOpenMb: number;
    rssAfterMb: number;
    leftOpen: { watches: number; subscriptions: number };
  };
}

const OPERATIONS = ['describe', 'query', 'result-wait', 'history-wait', 'signal', 'cancel'];

function temporalCalls(before: Samples, after: Samples): number {
  let calls = 0;
  for (const operation of OPERATIONS) {
    for (const outcome of ['ok', 'error', 'aborted']) {
      calls += delta(before, after, 'mcp_gateway_temporal_request_duration_seconds_count', {
        operation,
        outcome,
      });
    }
  }
  return calls;
}

async function startTask(url: URL, i: number): Promise<string> {
  const created = await rpcResult(url, 'tools/call', {
    name: 'start_mining',
    arguments: { ...CHAIN, data: `push-${i}` },
  });
  if (created.resultType !== 'task') throw new Error(`expected a task, got ${JSON.stringify(created)}`);
  return String(created.taskId);
}

async function closeTime(client: Client, taskId: string): Promise<number> {
  const description = await client.workflow.getHandle(taskId).describe();
  if (!description.closeTime) throw new Error(`run ${taskId} has no close time`);
  return description.closeTime.getTime();
}

/** Follows a task by push; resolves with the arrival time of its completed notification. */
async function followByPush(url: URL, taskId: string): Promise<number> {
  const stream = await listen(url, { taskIds: [taskId] });
  try {
    for (;;) {
      const message = await stream.next(60_000);
      if (!message) throw new Error('the stream ended before the task did');
      const task = message.params as { status?: string } | undefined;
      if (message.method === 'notifications/tasks' && task?.status === 'completed') return Date.now();
    }
  } finally {
    stream.close();
  }
}

/** Follows a task by tasks/get at the interval it advertises; resolves with the completed answer's arrival. */
async function followByPoll(url: URL, taskId: string): Promise<number> {
  for (;;) {
    const task = await rpcResult(url, 'tasks/get', { taskId });
    if (task.status === 'completed') return Date.now();
    if (task.status !== 'working') throw new Error(`task ${taskId} ${String(task.status)}`);
    await delay(Number(task.pollIntervalMs));
  }
}

export async function measurePush(options: {
  url: URL;
  /** A gateway whose tasks never finish (the parked queue), for the open-subscriptions part. */
  parkedUrl: URL;
  parkedGatewayPid: number;
  client: Client;
  rounds: number;
  subscriptions: number;
  pollIntervalMs: number;
}): Promise<PushResult> {
  const origin = options.url.origin;
  const notice = { push: [] as number[], poll: [] as number[] };
  const calls = { push: 0, poll: 0 };
  for (let round = 0; round < options.rounds; round++) {
    const sides = round % 2 === 0 ? (['push', 'poll'] as const) : (['poll', 'push'] as const);
    for (const side of sides) {
      const before = await scrape(origin);
      const taskId = await startTask(options.url, round * 2 + (side === 'push' ? 0 : 1));
      const arrived =
        side === 'push' ? await followByPush(options.url, taskId) : await followByPoll(options.url, taskId);
      const after = await scrape(origin);
      notice[side].push(arrived - (await closeTime(options.client, taskId)));
      calls[side] += temporalCalls(before, after);
    }
  }

  // Open subscriptions: one stream per parked task, all at once.
  const parkedOrigin = options.parkedUrl.origin;
  // Started a few at a time: the streams are what is measured, not a burst of starts.
  const ids = await inLanes(options.subscriptions, PARKED_STARTS_IN_FLIGHT, async () => {
    const created = await rpcResult(options.parkedUrl, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 36, blocks: 1, data: 'push-parked' },
    });
    return String(created.taskId);
  });
  const rssBefore = new RssSampler(options.parkedGatewayPid).stop().endMb;
  const streams = await Promise.all(ids.map((taskId) => listen(options.parkedUrl, { taskIds: [taskId] })));
  for (const stream of streams) {
    await stream.next(60_000); // the ack
    await stream.next(60_000); // the task's state
  }
  const rssOpen = new RssSampler(options.parkedGatewayPid).stop().endMb;
  for (const stream of streams) stream.close();
  const openGauge = async () => {
    const samples = await scrape(parkedOrigin);
    return {
      watches: samples.get('mcp_gateway_task_watches') ?? 0,
      subscriptions: samples.get('mcp_gateway_task_subscriptions') ?? 0,
    };
  };
  const leftOpen = await eventually(
    async () => {
      const open = await openGauge();
      return open.watches === 0 && open.subscriptions === 0 ? open : undefined;
    },
    10_000,
    'every stream and long poll to end',
  ).catch(openGauge);
  const rssAfter = new RssSampler(options.parkedGatewayPid).stop().endMb;
  for (const taskId of ids) await options.client.workflow.getHandle(taskId).terminate('bench over');
  return {
    pollIntervalMs: options.pollIntervalMs,
    push: distribution(notice.push),
    poll: distribution(notice.poll),
    callsPerTask: { push: calls.push / options.rounds, poll: calls.poll / options.rounds },
    subscriptions: {
      count: options.subscriptions,
      rssBeforeMb: rssBefore,
      rssOpenMb: rssOpen,
      rssAfterMb: rssAfter,
      leftOpen,
    },
  };
}
