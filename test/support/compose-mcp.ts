// An MCP client of a compose stack's published endpoint, as the compose tests drive it: its
// generated token, mining calls followed with tasks/get, and the miner's speed in its containers.
import assert from 'node:assert/strict';
import { pollUntil } from '../../common/poll.ts';
import type { ChainResult } from '../../workflows/mining/types.ts';
import type { ComposeProject } from './compose.ts';
import { difficultyFor, type MinerSpeed, measuredSpeed } from './gateway-difficulty.ts';
import { structured } from './mcp-clients.ts';
import { rpc, TASKS_CLIENT } from './mcp-http.ts';

export const TOKEN_FILE = '/home/node/gateway-data/auth-tokens';
const TASK_TIMEOUT_MS = 4 * 60_000;

type Task = Record<string, unknown>;

export const finished = (task: Task) => !['working', 'input_required'].includes(String(task.status));

export const chainOf = (task: Task): ChainResult => structured(task.result).result as ChainResult;

/** The token the stack's first gateway generated, read from the file it wrote in `service`. */
export async function generatedToken(project: ComposeProject, service: string): Promise<string> {
  const file = (await project.compose(['exec', '-T', service, 'cat', TOKEN_FILE])).stdout.trim();
  const match = /^user:([A-Za-z0-9_-]{43})$/.exec(file);
  assert.ok(match, `one principal:token line, 256 random bits: ${file.replace(/:.*/, ':…')}`);
  return match[1] as string;
}

/** A Tasks-extension client of `url` with a bearer token. */
export function composeClient(url: URL, token: string) {
  const call = async (method: string, params: Record<string, unknown>) => {
    const answer = await rpc(url, method, params, TASKS_CLIENT, { authorization: `Bearer ${token}` });
    if (!answer.result) throw new Error(`${method}: ${answer.httpStatus} ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  /** Polls tasks/get until `done` holds of the task; the task then. */
  const until = (taskId: string, done: (task: Task) => boolean, timeoutMs = TASK_TIMEOUT_MS) =>
    pollUntil(
      async () => {
        const task = await call('tasks/get', { taskId });
        return done(task) ? task : undefined;
      },
      { timeoutMs, intervalMs: 500 },
    );
  const startMining = (args: Record<string, unknown>) =>
    call('tools/call', { name: 'start_mining', arguments: args });
  /** A chain mined to its end, inline or followed as a task. */
  const mine = async (args: Record<string, unknown>): Promise<ChainResult> => {
    const answer = await startMining(args);
    return answer.resultType === 'task'
      ? chainOf(await until(String(answer.taskId), finished))
      : (structured(answer).result as ChainResult);
  };
  /**
   * A chain of `blocks` blocks of about `seconds` each that outlasts the wait budget: its task id,
   * once mining, and how many runs it took. A speed measured low (a busy host) makes the chain
   * finish within the budget: then it is started again one difficulty higher (twice the work), at
   * most twice.
   */
  const longTask = async (speed: MinerSpeed, blocks: number, seconds: number, data: string) => {
    let created: Task = {};
    let runs = 0;
    for (; runs < 3 && created.resultType !== 'task'; runs++) {
      created = await startMining({ difficulty: difficultyFor(speed, seconds) + runs, blocks, data });
    }
    assert.equal(created.resultType, 'task', `${data}: outlasts the wait budget`);
    const taskId = String(created.taskId);
    await until(taskId, (t) => /[1-9][\d,]* hashes tried/.test(String(t.statusMessage ?? '')), 90_000);
    return { taskId, runs };
  };
  return { call, until, startMining, mine, longTask };
}

export type ComposeClient = ReturnType<typeof composeClient>;

/**
 * The miner's speed in the stack's containers, so long runs last what they are meant to: a short
 * chain warms the workers up, then the faster of two (a busy host slows one down, and a speed
 * guessed low would make a long chain finish within the budget once the host is quiet again).
 */
export async function calibrate(client: ComposeClient): Promise<MinerSpeed> {
  await client.mine({ difficulty: 14, blocks: 2 });
  // Blocks of some 16 M hashes: shorter ones measure each block's start more than its hashing
  // (blocks of 4 M measured half the speed once, on a cluster's busy host).
  const runs = [
    await client.mine({ difficulty: 24, blocks: 3 }),
    await client.mine({ difficulty: 24, blocks: 3, data: 'calibration' }),
  ];
  return { hashesPerSecond: Math.max(...runs.map((r) => measuredSpeed(r).hashesPerSecond)) };
}
