// Latency of the gateway's task path next to the raw Temporal calls it makes, in one run:
//   tools/call start_mining → CreateTaskResult  vs  client.workflow.start
//   tasks/get                                  vs  describe + progress query
// A real dev server, a real worker process, the gateway in-process on a free port, plain HTTP
// framed as MCP 2026-07-28. The gateway's wait budget is 0, so every call takes the task path
// (start, then describe + query for the handle). Each run mines one easy block, then waits for
// approval: it stays open without using the CPU.
//
//   npx tsx bench/gateway-latency.ts [calls=200]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { buildApp } from '../gateway/app.ts';
import { gatewayConfig } from '../gateway/config.ts';
import { newTaskId } from '../gateway/task-id.ts';
import { createTemporalClient } from '../gateway/temporal-client.ts';
import { MCP_PRINCIPAL, MCP_TOOL, TemporalMining } from '../gateway/temporal-mining.ts';
import { DevServer } from '../lib/dev-server.ts';
import { rpcResult } from '../test/support/mcp-http.ts';
import { MINE_CHAIN_WORKFLOW, type MineChainInput, progressQuery } from '../workflows/contract.ts';

const CALLS = Number(process.argv[2] ?? 200);
const WARMUP = 20;
const TASK_QUEUE = 'gateway-latency';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ARGS = { difficulty: 1, blocks: 1, data: 'bench', require_approval: true };
const INPUT: MineChainInput = { difficulty: 1, blocks: 1, data: 'bench', requireApproval: true };

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  const f = (v: number) => v.toFixed(1).padStart(7);
  return `${name.padEnd(46)} n=${String(sorted.length).padEnd(4)} p50 ${f(at(0.5))} ms  p99 ${f(at(0.99))} ms  mean ${f(mean)} ms  max ${f(sorted.at(-1) ?? NaN)} ms`;
}

async function timed<T>(samples: number[], fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await fn();
  samples.push(performance.now() - start);
  return value;
}

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-latency-'));
const server = await DevServer.start({ dbFilename: join(dataDir, 'temporal.db') });
const worker = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
  cwd: ROOT,
  env: {
    ...process.env,
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MCP_DATA_DIR: dataDir,
  },
  stdio: ['ignore', 'pipe', 'ignore'],
});
const config = gatewayConfig({
  TEMPORAL_ADDRESS: server.address,
  TEMPORAL_TASK_QUEUE: TASK_QUEUE,
  MCP_PORT: '0',
  MCP_WAIT_BUDGET_MS: '0',
});
const gatewayTemporal = createTemporalClient(config.temporal, config.temporalTimeoutMs);
const backend = new TemporalMining(gatewayTemporal, {
  taskQueue: TASK_QUEUE,
  namespace: config.temporal.namespace,
  callTimeoutMs: config.temporalTimeoutMs,
  queryTimeoutMs: config.queryTimeoutMs,
});
const app = buildApp(config, { backend });
const connection = await Connection.connect({ address: server.address });
const raw = new Client({ connection });

try {
  await new Promise<void>((resolve, reject) => {
    worker.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('worker: polling task queue')) resolve();
    });
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
  const url = new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));
  console.log(
    `dev server ${server.address}; gateway ${url}; ${CALLS} calls each, after ${WARMUP} warm-up calls`,
  );

  const createTask: number[] = [];
  const getTask: number[] = [];
  const rawStart: number[] = [];
  const rawDescribeQuery: number[] = [];
  const taskIds: string[] = [];
  const rawIds: string[] = [];

  const startViaGateway = async (samples: number[]) => {
    const created = await timed(samples, () =>
      rpcResult(url, 'tools/call', { name: 'start_mining', arguments: ARGS }),
    );
    if (created.resultType !== 'task') throw new Error(`expected a task, got ${JSON.stringify(created)}`);
    taskIds.push(String(created.taskId));
  };
  const startRaw = async (samples: number[]) => {
    const workflowId = newTaskId();
    await timed(samples, () =>
      raw.workflow.start(MINE_CHAIN_WORKFLOW, {
        workflowId,
        taskQueue: TASK_QUEUE,
        args: [INPUT],
        memo: { tool: 'start_mining', arguments: ARGS, principal: 'anonymous', input: INPUT },
        typedSearchAttributes: [
          { key: MCP_TOOL, value: 'start_mining' },
          { key: MCP_PRINCIPAL, value: 'anonymous' },
        ],
        staticSummary: 'start_mining: 1 block(s) at difficulty 1 for anonymous',
      }),
    );
    rawIds.push(workflowId);
  };

  // Interleaved, so both sides see the same server load; warm-up calls are not counted.
  for (let i = 0; i < WARMUP; i++) {
    await startViaGateway([]);
    await startRaw([]);
  }
  for (let i = 0; i < CALLS; i++) {
    await startViaGateway(createTask);
    await startRaw(rawStart);
  }
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const counted = i >= WARMUP;
    const taskId = taskIds[i % taskIds.length] as string;
    const task = await timed(counted ? getTask : [], () => rpcResult(url, 'tasks/get', { taskId }));
    if (task.resultType !== 'complete' || !task.status)
      throw new Error(`bad tasks/get: ${JSON.stringify(task)}`);
    const handle = raw.workflow.getHandle(rawIds[i % rawIds.length] as string);
    await timed(counted ? rawDescribeQuery : [], async () => {
      await handle.describe();
      await handle.query(progressQuery);
    });
  }

  console.log(summary('MCP tools/call → CreateTaskResult (HTTP)', createTask));
  console.log(summary('Temporal client workflow.start', rawStart));
  console.log(summary('MCP tasks/get (HTTP)', getTask));
  console.log(summary('Temporal client describe + query', rawDescribeQuery));
} finally {
  await app.close().catch(() => {});
  await gatewayTemporal.connection.close().catch(() => {});
  await connection.close().catch(() => {});
  worker.kill('SIGTERM');
  await new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(null)));
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
