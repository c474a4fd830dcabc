// Two tenants on one mining worker, for the fairness test and the bench's `noisy` part: a dev server
// of its own (fairness on or off), the worker, and a gateway where alice and bob each have a token.
// Alice floods the queue with long calls; bob's short call is timed from its tools/call to its result.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import protos from '@temporalio/proto';
import { pollUntil } from '../../common/poll.ts';
import { DevServer } from '../../launcher/dev-server.ts';
import type { ChainResult } from '../../workflows/mining/types.ts';
import { type MinerSpeed, measuredSpeed } from './gateway-difficulty.ts';
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

/** A dev server with fairness on or off, the worker and a gateway on it. */
export async function startNoisyStack(fairness: boolean): Promise<NoisyStack> {
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
      // The flood contends for the worker's slots, which fairness shares; one mining thread leaves the
      // other core to Temporal and the gateway, so CPU quota and scheduling do not decide the figures.
      MINER_THREADS: '1',
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

/** The calibration call: blocks enough to time the miner on any core, fast or plain. */
const CALIBRATION = { difficulty: 21, blocks: 2 } as const;

/**
 * The miner's speed on this stack, from one call of alice's (its own count of hashes and
 * milliseconds): it differs many times between CPUs with SHA extensions and without, and the length
 * of alice's blocks is what bob waits for a slot behind.
 */
export async function minerSpeed(stack: NoisyStack): Promise<MinerSpeed> {
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
