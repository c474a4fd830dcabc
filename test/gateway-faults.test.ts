// Faults with real processes: a worker killed mid-block, the gateway killed and restarted, the
// Temporal dev server restarted on its database, and Temporal down for a while. In each, the task a
// client is polling survives and completes; during a Temporal outage calls fail fast (within 2 s) and clearly,
// /readyz says 503, and both recover by themselves. Prints the times it measured.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { latestHeartbeat } from '../gateway/temporal/view.ts';
import { DevServer } from '../launcher/dev-server.ts';
import { freePort } from '../launcher/free-port.ts';
import type { ChainResult } from '../workflows/mining/types.ts';
import { calibrate, difficultyFor, type MinerSpeed } from './support/gateway-difficulty.ts';
import { type GatewayProcess, startGatewayProcess } from './support/gateway-process.ts';
import { TEST_SERVER_SECRET, taskHandle } from './support/gateway-server.ts';
import { structured } from './support/mcp-clients.ts';
import { PLAIN_CLIENT, rpc, rpcResult, TASKS_CLIENT } from './support/mcp-http.ts';
import { eventually } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const TASK_QUEUE = `gateway-faults-${process.pid}`;
const TOKEN = 'fault-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let dataDir: string;
let temporalPort: number;
let server: DevServer;
let connection: Connection;
let client: Client;
let worker: WorkerProcess;
let gatewayPort: number;
let gateway: GatewayProcess;
let speed: MinerSpeed;
const figures: string[] = [];

const gatewayEnv = () => ({
  TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
  TEMPORAL_TASK_QUEUE: TASK_QUEUE,
  MCP_AUTH_TOKENS: `faults:${TOKEN}`,
  MCP_SERVER_SECRET: TEST_SERVER_SECRET,
  MCP_DATA_DIR: dataDir,
  MCP_WAIT_BUDGET_MS: '1000',
  MCP_POLL_INTERVAL_MS: '250',
  MCP_TEMPORAL_TIMEOUT_MS: '4000',
  MCP_READY_TIMEOUT_MS: '1000',
});
const workerEnv = () => ({
  TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
  TEMPORAL_TASK_QUEUE: TASK_QUEUE,
  MCP_DATA_DIR: dataDir,
});
const startServer = () => DevServer.start({ port: temporalPort, dbFilename: join(dataDir, 'temporal.db') });

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-faults-'));
  temporalPort = await freePort();
  gatewayPort = await freePort();
  server = await startServer();
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, namespace: 'default' });
  worker = startWorker(workerEnv());
  gateway = await startGatewayProcess(gatewayPort, gatewayEnv());
  await worker.ready;
  // Calibration runs as the local principal, through a gateway of its own without tokens.
  const open = await startGatewayProcess(await freePort(), { ...gatewayEnv(), MCP_AUTH_TOKENS: '' });
  try {
    speed = await calibrate(open.url);
  } finally {
    await open.stop();
  }
});

after(async () => {
  await gateway?.stop('SIGKILL').catch(() => {});
  await worker?.stop('SIGKILL').catch(() => {});
  await connection?.close().catch(() => {});
  await server?.stop();
  console.log(`fault figures:\n${figures.map((f) => `  ${f}`).join('\n')}`);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Polls tasks/get (errors while something is down count as "not yet"), until the task ends. */
async function pollToEnd(taskId: string, timeoutMs: number) {
  return eventually(
    async () => {
      const task = await rpcResult(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, AUTH);
      return task.status === 'working' ? undefined : task;
    },
    timeoutMs,
    `task ${taskId} to end`,
    250,
  );
}

async function startTask(args: Record<string, unknown>): Promise<string> {
  const created = await rpcResult(
    gateway.url,
    'tools/call',
    { name: 'start_mining', arguments: args },
    TASKS_CLIENT,
    AUTH,
  );
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  return String(created.taskId);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe('faults', () => {
  test('worker SIGKILL mid-block: the task completes, the block resumed from its heartbeat', async () => {
    // At difficulty 27 this block's first valid nonce is 178,441,299 (see worker-fault.test.ts).
    const taskId = await startTask({ difficulty: 27, blocks: 1, data: 'fault-e' });
    const beat = await eventually(
      async () => {
        const nonce = (
          latestHeartbeat(await taskHandle(client, 'faults', taskId).describe()) as
            | { nonce?: number }
            | undefined
        )?.nonce;
        return nonce !== undefined && nonce > 0 ? { nonce } : undefined;
      },
      30_000,
      'a heartbeat with progress',
    );
    const killedAt = Date.now();
    await worker.stop('SIGKILL');
    worker = startWorker(workerEnv());
    await worker.ready;
    const done = await pollToEnd(taskId, 120_000);
    assert.equal(done.status, 'completed');
    const chain = structured(done.result).result as ChainResult;
    const [block] = chain.blocks;
    assert.ok(block);
    assert.equal(block.nonce, 178_441_299);
    assert.ok(block.attempt >= 2, `attempt ${block.attempt}`);
    assert.ok(block.startNonce > beat.nonce, `resumed at ${block.startNonce}, heartbeat at ${beat.nonce}`);
    figures.push(
      `worker SIGKILL: completed ${seconds(Date.now() - killedAt)} after the kill, attempt ${block.attempt}, ` +
        `resumed at nonce ${block.startNonce} (last heartbeat before the kill: ${beat.nonce})`,
    );
  });

  test('gateway SIGKILL and restart mid-task: the same client keeps polling the same task to completion', async () => {
    const args = { difficulty: difficultyFor(speed, 0.5), blocks: 12 };
    const started = await rpcResult(
      gateway.url,
      'tools/call',
      { name: 'start_mining', arguments: args },
      PLAIN_CLIENT,
      AUTH,
    );
    const workflowId = String(structured(started).workflow_id);
    assert.equal(structured(started).status, 'running');
    const poll = async () =>
      structured(
        await rpcResult(
          gateway.url,
          'tools/call',
          { name: 'get_mining_result', arguments: { workflow_id: workflowId } },
          PLAIN_CLIENT,
          AUTH,
        ),
      );
    assert.equal((await poll()).status, 'running');

    const killedAt = Date.now();
    await gateway.stop('SIGKILL');
    await assert.rejects(poll(), 'the gateway is down');
    gateway = await startGatewayProcess(gatewayPort, gatewayEnv());
    const back = Date.now();
    const firstPoll = await poll();
    const recovered = Date.now();
    assert.ok(['running', 'completed'].includes(String(firstPoll.status)), JSON.stringify(firstPoll));
    const done = await eventually(
      async () => {
        const json = await poll();
        return json.status === 'running' ? undefined : json;
      },
      60_000,
      'the run to finish',
      250,
    );
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, await taskHandle(client, 'faults', workflowId).result());
    figures.push(
      `gateway restart: down ${seconds(back - killedAt)} (process start included), first poll answered ` +
        `${recovered - back} ms after it listened, run completed ${seconds(Date.now() - killedAt)} after the kill`,
    );
  });

  test('dev server restarted on its database mid-task: the task survives and completes', async () => {
    const taskId = await startTask({ difficulty: difficultyFor(speed, 0.6), blocks: 12 });
    await eventually(
      async () => {
        const task = await rpcResult(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, AUTH);
        return /[1-9]\d* of 12 blocks done/.test(String(task.statusMessage)) ? task : undefined;
      },
      30_000,
      'a block or more done',
      250,
    );
    const stoppedAt = Date.now();
    await server.stop();
    server = await startServer();
    const restarted = Date.now();
    const answered = await eventually(
      async () => (await rpcResult(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, AUTH)) && Date.now(),
      30_000,
      'the gateway to answer again',
      100,
    );
    const done = await pollToEnd(taskId, 90_000);
    assert.equal(done.status, 'completed');
    const chain = structured(done.result).result as ChainResult;
    assert.equal(chain.blocks.length, 12);
    figures.push(
      `dev server restart: down ${seconds(restarted - stoppedAt)}, gateway answered tasks/get ${answered - restarted} ms ` +
        `after the server was back, task completed ${seconds(Date.now() - restarted)} after that`,
    );
  });

  test('Temporal stopped: tools/call errors within 2 s and /readyz is 503; both recover by themselves', async () => {
    const taskId = await startTask({ difficulty: difficultyFor(speed, 0.5), blocks: 12 });
    await server.stop();
    const downAt = Date.now();

    const callTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = Date.now();
      const answer = await rpc(
        gateway.url,
        'tools/call',
        { name: 'start_mining', arguments: { difficulty: 8, blocks: 1 } },
        TASKS_CLIENT,
        AUTH,
      );
      callTimes.push(Date.now() - sent);
      assert.equal(answer.error?.code, -32603, JSON.stringify(answer));
      // Under the cap the start is the first call (it takes the slot). The first one finds Temporal
      // refusing connections in flight, the connection never up again: nothing was sent, and it says
      // so, as every start does from then on, Temporal known down.
      const data = answer.error?.data as { reason: string; workflowId: string; started: boolean };
      assert.deepEqual(
        [data.reason, data.started, typeof data.workflowId],
        ['temporal_unavailable', false, 'string'],
      );
    }
    // Well under the start's deadline (4 s): a refused connection is not waited out.
    assert.ok(Math.max(...callTimes) < 2_000, `tools/call took ${callTimes.join(', ')} ms`);
    let sent = Date.now();
    const poll = await rpc(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, AUTH);
    const pollMs = Date.now() - sent;
    assert.equal(poll.error?.code, -32603);
    assert.ok(pollMs < 2_000, `tasks/get took ${pollMs} ms`);
    sent = Date.now();
    const ready = await fetch(new URL('/readyz', gateway.origin));
    const readyMs = Date.now() - sent;
    assert.equal(ready.status, 503);
    assert.ok(readyMs < 2_000, `/readyz took ${readyMs} ms`);
    assert.equal((await fetch(new URL('/healthz', gateway.origin))).status, 200);

    server = await startServer();
    const upAt = Date.now();
    const readyAgain = await eventually(
      async () => ((await fetch(new URL('/readyz', gateway.origin))).status === 200 ? Date.now() : undefined),
      60_000,
      '/readyz to say 200 again',
      100,
    );
    const callAgain = await eventually(
      async () => {
        const answer = await rpc(
          gateway.url,
          'tools/call',
          { name: 'start_mining', arguments: { difficulty: 8, blocks: 1 } },
          TASKS_CLIENT,
          AUTH,
        );
        return answer.result ? Date.now() : undefined;
      },
      60_000,
      'tools/call to work again',
      100,
    );
    const done = await pollToEnd(taskId, 90_000);
    assert.equal(done.status, 'completed');
    figures.push(
      `Temporal down ${seconds(upAt - downAt)}: tools/call errors in ${callTimes.join(' / ')} ms, tasks/get in ${pollMs} ms, ` +
        `/readyz 503 in ${readyMs} ms; after restart /readyz 200 in ${readyAgain - upAt} ms, tools/call ok in ` +
        `${callAgain - upAt} ms, the task in flight completed ${seconds(Date.now() - upAt)} later`,
    );
  });
});
