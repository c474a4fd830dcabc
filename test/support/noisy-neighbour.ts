// Two tenants on one mining worker, for the fairness tests and the bench's `noisy` part: a dev server
// of its own (fairness on or off), the worker, and a gateway where alice and bob each have a token.
// Alice floods the queue with long calls, in blocks of milliseconds or of seconds; bob's short call
// is timed from its tools/call to its result.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import protos from '@temporalio/proto';
import { pollUntil } from '../../common/poll.ts';
import { DevServer } from '../../launcher/dev-server.ts';
import type { ChainResult } from '../../workflows/mining/types.ts';
import { difficultyFor, type MinerSpeed, measuredSpeed } from './gateway-difficulty.ts';
import { startGateway, type TestGateway, taskHandle } from './gateway-server.ts';
import { rpc, TASKS_CLIENT } from './mcp-http.ts';
import { startWorker, type WorkerProcess } from './worker-process.ts';

const QUEUE = 'noisy-neighbour';
const TOKENS = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef01' } as const;
type Tenant = keyof typeof TOKENS;

/** Alice's starts in flight at once. */
const FLOOD_IN_FLIGHT = 60;

/** Bob's short call: one easy block. */
export const SHORT_CALL = { difficulty: 8, blocks: 1 } as const;

export interface NoisyStack {
  fairness: boolean;
  gateway: TestGateway;
  client: Client;
  stop(): Promise<void>;
}

/**
 * A dev server with fairness on or off, the worker and a gateway on it. `workerEnv` adds to the
 * worker's environment (none: the worker as it ships, a miner thread per core).
 */
export async function startNoisyStack(
  fairness: boolean,
  workerEnv: Record<string, string> = {},
): Promise<NoisyStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'noisy-'));
  const stops: (() => Promise<unknown>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of stops) await step().catch(() => {});
  };
  try {
    const server = await DevServer.start({ dbFilename: join(dataDir, 'temporal.db'), fairness });
    stops.unshift(() => server.stop());
    const connection = await Connection.connect({ address: server.address });
    stops.unshift(() => connection.close());
    const worker: WorkerProcess = startWorker({
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_TASK_QUEUE: QUEUE,
      ...workerEnv,
    });
    stops.unshift(() => worker.stop());
    const gateway = await startGateway({
      temporalAddress: server.address,
      taskQueue: QUEUE,
      waitBudgetMs: 0,
      // The deployed call deadline: a loaded machine answers a flood's starts slowly, not never.
      temporalTimeoutMs: 10_000,
      env: {
        MCP_AUTH_TOKENS: Object.entries(TOKENS)
          .map(([principal, token]) => `${principal}:${token}`)
          .join(','),
        // The flood is sent at once: no bound on starts per second here.
        MCP_MAX_STARTS_PER_SECOND: '0',
      },
    });
    stops.unshift(() => gateway.close());
    await worker.ready;
    return { fairness, gateway, client: new Client({ connection }), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Starts a mining call as `tenant`; resolves with its task id. */
async function startCall(stack: NoisyStack, tenant: Tenant, args: Record<string, unknown>): Promise<string> {
  const answer = await rpc(
    stack.gateway.url,
    'tools/call',
    { name: 'start_mining', arguments: args },
    TASKS_CLIENT,
    { authorization: `Bearer ${TOKENS[tenant]}` },
  );
  const taskId = answer.result?.taskId;
  if (typeof taskId !== 'string')
    throw new Error(`${tenant}'s call was not started: ${JSON.stringify(answer)}`);
  return taskId;
}

/**
 * Bob's short call: ms from its tools/call to its result, or undefined when it has not come within
 * `boundMs` (the run is left to the stack's stop; `onLate` hears where it was then).
 */
export async function shortCall(
  stack: NoisyStack,
  boundMs: number,
  onLate?: (where: string) => void,
): Promise<number | undefined> {
  const sent = performance.now();
  const taskId = await startCall(stack, 'bob', { ...SHORT_CALL, data: `bob ${sent}` });
  // Ended at the bound: a long poll left open would be retried on a connection the stack closes.
  const bound = AbortSignal.timeout(Math.max(1, Math.round(boundMs - (performance.now() - sent))));
  const handle = taskHandle(stack.client, 'bob', taskId);
  try {
    await stack.client.withAbortSignal(bound, () => handle.result());
    return Math.round(performance.now() - sent);
  } catch (err) {
    if (!bound.aborted) throw err;
    onLate?.(await whereIsRun(handle));
    return undefined;
  }
}

const STARTED = protos.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

/** Where a run late at its bound is: its block still queued, being mined, or its workflow task due. */
async function whereIsRun(handle: ReturnType<typeof taskHandle>): Promise<string> {
  const { raw } = await handle.describe();
  const activity = raw.pendingActivities?.[0];
  if (activity) return activity.state === STARTED ? 'its block being mined' : 'its block queued';
  return raw.pendingWorkflowTask ? 'its workflow task queued' : 'done just past the bound';
}

/**
 * Alice's flood: `calls` runs of `blocks` blocks, each block about `blockMs` of the whole miner's
 * time. Each run mines one block at a time, so all but the worker's 8 slots' worth wait in the queue
 * (`backlog` of them at least, before bob calls) for as long as the flood lasts.
 */
export interface FloodPlan {
  calls: number;
  blockMs: number;
  blocks: number;
  backlog: number;
}

/** Blocks of milliseconds: a slot frees every few milliseconds. */
export const MILLISECOND_BLOCKS: FloodPlan = { calls: 90, blockMs: 20, blocks: 20, backlog: 60 };
/** Blocks of seconds: a slot frees about once a block's time (the miner's threads shared by 8 blocks). */
export const SECOND_BLOCKS: FloodPlan = { calls: 60, blockMs: 1_500, blocks: 3, backlog: 40 };

/** A plan sized for this machine: the difficulty, and the mean time of one block at it on the miner. */
export interface SizedFlood {
  difficulty: number;
  blockMs: number;
}

/** Sizes `plan`'s blocks by the miner's speed on this stack (difficulties step by powers of two). */
export async function sizeFlood(stack: NoisyStack, plan: FloodPlan): Promise<SizedFlood> {
  const speed = await minerSpeed(stack);
  const difficulty = difficultyFor(speed, plan.blockMs / 1000);
  return { difficulty, blockMs: Math.round((2 ** difficulty / speed.hashesPerSecond) * 1000) };
}

/** The calibration call: blocks enough to time the miner on any core, fast or plain. */
const CALIBRATION = { difficulty: 21, blocks: 2 } as const;

/**
 * The miner's speed on this stack, from one call of alice's (its own count of hashes and
 * milliseconds): it differs many times between CPUs with SHA extensions and without, and the length
 * of alice's blocks is what bob waits for a slot behind.
 */
async function minerSpeed(stack: NoisyStack): Promise<MinerSpeed> {
  const taskId = await startCall(stack, 'alice', { ...CALIBRATION, data: `alice calibrates ${Date.now()}` });
  return measuredSpeed((await taskHandle(stack.client, 'alice', taskId).result()) as ChainResult);
}

/**
 * Alice's flood: `calls` long calls sent at once, every one started; resolves once the worker's
 * activity queue holds a backlog of at least `backlog` of them (its slots all busy).
 */
export async function flood(
  stack: NoisyStack,
  options: { calls: number; difficulty: number; blocks: number; backlog: number },
): Promise<void> {
  const { calls, difficulty, blocks } = options;
  // At most FLOOD_IN_FLIGHT starts at once: a loaded dev server answers hundreds slowly.
  let next = 0;
  const sender = async () => {
    for (let i = next++; i < calls; i = next++)
      await startCall(stack, 'alice', { difficulty, blocks, data: `alice ${i}` });
  };
  await Promise.all(Array.from({ length: Math.min(calls, FLOOD_IN_FLIGHT) }, sender));
  await pollUntil(
    async () => {
      const described = await stack.client.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: QUEUE, kind: 1 },
        taskQueueType: 2, // activity
        reportStats: true,
      });
      return Number(described.stats?.approximateBacklogCount ?? 0) >= options.backlog ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

/** One side of a fairness test: bob's calls alone, then during alice's flood, with their bound. */
export interface FloodSide {
  fairness: boolean;
  /** Bob's calls alone and their median. */
  alone: number[];
  aloneMs: number;
  flood: SizedFlood & { plan: FloodPlan; startedMs: number };
  bound: number;
  /** Bob's calls during the flood, one after the other: undefined when not done within the bound. */
  calls: (number | undefined)[];
  /** Their median, a call not done counted as longer than any that was. */
  during: number | undefined;
  /** Where each call late at the bound was then. */
  late: string[];
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * On a stack of its own: bob's first call (which warms the worker and the gateway up), `alone` of
 * his calls, alice's flood sized for this machine, then `during` calls of his each given `bound`.
 */
export async function bobAgainstFlood(
  fairness: boolean,
  plan: FloodPlan,
  options: {
    workerEnv?: Record<string, string>;
    alone: number;
    during: number;
    bound: (aloneMs: number, flood: SizedFlood) => number;
  },
): Promise<FloodSide> {
  const stack = await startNoisyStack(fairness, options.workerEnv);
  try {
    if ((await shortCall(stack, 60_000)) === undefined)
      throw new Error("bob's first call not done within 60 s");
    const alone: number[] = [];
    for (let i = 0; i < options.alone; i++) {
      const ms = await shortCall(stack, 30_000);
      if (ms === undefined) throw new Error("bob's call alone not done within 30 s");
      alone.push(ms);
    }
    const aloneMs = median(alone);
    const sized = await sizeFlood(stack, plan);
    const bound = Math.round(options.bound(aloneMs, sized));
    const flooded = performance.now();
    await flood(stack, { ...plan, difficulty: sized.difficulty });
    const startedMs = Math.round(performance.now() - flooded);
    const calls: (number | undefined)[] = [];
    const late: string[] = [];
    for (let i = 0; i < options.during; i++)
      calls.push(await shortCall(stack, bound, (where) => late.push(where)));
    const sorted = [...calls].sort(
      (a, b) => (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY),
    );
    const during = sorted[Math.floor(sorted.length / 2)];
    return { fairness, alone, aloneMs, flood: { ...sized, plan, startedMs }, bound, calls, during, late };
  } finally {
    await stack.stop();
  }
}

/** One line of figures for a side, as the fairness tests print them. */
export function describeSide(side: FloodSide): string {
  const { flood: f } = side;
  const said = (ms: number | undefined) => (ms === undefined ? `>${side.bound}` : String(ms));
  const ratio = side.during === undefined ? '' : ` (${(side.during / side.aloneMs).toFixed(1)}x alone)`;
  return (
    `fairness ${side.fairness ? 'on ' : 'off'}: bob alone ${side.alone.join(' / ')} ms (median ${side.aloneMs}); ` +
    `alice's ${f.plan.calls} calls of ${f.plan.blocks} blocks (difficulty ${f.difficulty}, ~${f.blockMs} ms a block ` +
    `on the whole miner) started and backlogged in ${f.startedMs} ms; bob during the flood ` +
    `${side.calls.map(said).join(' / ')} ms, median ${said(side.during)} ms${ratio}; bound ${side.bound} ms` +
    `${side.late.length === 0 ? '' : `; at the bound: ${side.late.join(', ')}`}`
  );
}
