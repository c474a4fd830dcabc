// Polls per completed task with a fixed poll interval and with the adaptive one, side by side in
// one run on one stack: two gateway processes (one advising a fixed 2 s, one with the default
// adaptive pacing), the same mix of runs on each (short runs, long runs reporting progress, runs
// waiting on a person for a while), every run followed by a Tasks client that waits exactly the
// advised pollIntervalMs between tasks/get. Also how late each client saw the end (its completed
// answer − the run's close time) and how many polls the limiter refused (both sides run it at
// 500 ms; a client that follows the advice must never be refused).
// `npm run bench:polling` (POLL_BENCH_RUNS runs of each kind per side, default 10; THINK_MS, the
// person's answer time, default 60000).
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { integerSetting } from '../common/settings.ts';
import type { Script } from '../test/fixtures/workflows/paced-run.ts';
import { GATEWAY_UNDER_TSX } from '../test/support/gateway-process.ts';
import { type Framing, rpc, WITH_TASKS } from '../test/support/mcp-http.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { type GatewayProcess, startGatewayProcess } from './stack.ts';
import { distribution, ms } from './stats.ts';

const RUNS = integerSetting(process.env, 'POLL_BENCH_RUNS', { fallback: 10, min: 1, max: 1_000 });
const THINK_MS = integerSetting(process.env, 'THINK_MS', { fallback: 60_000, min: 0, max: 3_600_000 });
const CATALOG = fileURLToPath(new URL('../test/fixtures/paced-catalog.yaml', import.meta.url));
const WORKFLOWS = fileURLToPath(new URL('../test/fixtures/workflows/paced-run.ts', import.meta.url));
const LIMITER = { MCP_POLL_MIN_INTERVAL_MS: '500' };

const SIDES = {
  fixed: {
    MCP_POLL_INTERVAL_MS: '2000',
    MCP_POLL_FAST_INTERVAL_MS: '2000',
    MCP_POLL_INPUT_INTERVAL_MS: '2000',
    MCP_POLL_MAX_INTERVAL_MS: '2000',
    MCP_POLL_JITTER_PERCENT: '0',
  },
  // The defaults: steady 2 s, fast 500 ms, input 30 s, max 60 s, ±20%.
  adaptive: {},
} as const;
type Side = keyof typeof SIDES;

const KINDS: Record<string, Script> = {
  'short (2 s)': { steps: 4, stepMs: 500 },
  'long (30 s, progress/total)': { steps: 30, stepMs: 1_000 },
  [`waiting on a person (${THINK_MS / 1000} s) then 1.5 s`]: {
    steps: 4,
    stepMs: 500,
    askAtStep: 1,
    thinkMs: THINK_MS,
  },
};

interface Followed {
  side: Side;
  kind: string;
  polls: number;
  refused: number;
  /** The client's completed answer − the run's close time. */
  lateMs: number;
  /** The run's close − start time in Temporal. */
  runMs: number;
}

Runtime.install({ logger: new DefaultLogger('WARN') });
const temporal = await startOwnTestTemporal();
const connection = await NativeConnection.connect({ address: temporal.server.address });
const worker = await Worker.create({ connection, taskQueue: 'fixture-paced', workflowsPath: WORKFLOWS });
const running = worker.run();
const gateways: Partial<Record<Side, GatewayProcess>> = {};

/** Starts one run and follows it, waiting exactly the advised interval between polls. */
async function follow(side: Side, kind: string, script: Script): Promise<Followed> {
  const gateway = gateways[side] as GatewayProcess;
  const framing: Framing = {
    clientInfo: { name: `bench-polling-${side}`, version: '1.0.0' },
    clientCapabilities: WITH_TASKS,
  };
  const created = await rpc(gateway.url, 'tools/call', { name: 'scripted_run', arguments: script }, framing);
  const task = created.result;
  if (task?.resultType !== 'task') throw new Error(`${side}: no task: ${JSON.stringify(created)}`);
  const taskId = String(task.taskId);
  let advice = Number(task.pollIntervalMs);
  let polls = 0;
  let refused = 0;
  for (;;) {
    await delay(advice);
    const answer = await rpc(gateway.url, 'tasks/get', { taskId }, framing);
    polls++;
    if (answer.httpStatus === 429) {
      refused++;
      continue;
    }
    const seen = answer.result;
    if (!seen) throw new Error(`${side}: tasks/get failed: ${JSON.stringify(answer)}`);
    if (seen.status === 'completed' || seen.status === 'failed' || seen.status === 'cancelled') {
      const seenAt = Date.now();
      const { startTime, closeTime } = await temporal.client.workflow.getHandle(taskId).describe();
      if (seen.status !== 'completed' || !closeTime)
        throw new Error(`${side}: ${taskId} ended ${seen.status}`);
      const runMs = closeTime.getTime() - startTime.getTime();
      return { side, kind, polls, refused, lateMs: seenAt - closeTime.getTime(), runMs };
    }
    advice = Number(seen.pollIntervalMs);
  }
}

try {
  for (const side of Object.keys(SIDES) as Side[]) {
    gateways[side] = await startGatewayProcess({
      temporalAddress: temporal.server.address,
      taskQueue: 'not-used-by-the-catalog',
      waitBudgetMs: 500,
      nodeArgs: GATEWAY_UNDER_TSX,
      env: { MCP_TOOLS_FILE: CATALOG, ...LIMITER, ...SIDES[side] },
    });
  }
  const started = Date.now();
  // Every run of the mix on both sides at once, started in alternation a little apart.
  const all: Promise<Followed>[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const [kind, script] of Object.entries(KINDS)) {
      for (const side of Object.keys(SIDES) as Side[]) {
        all.push(follow(side, kind, script));
        await delay(20);
      }
    }
  }
  const followed = await Promise.all(all);
  const took = (Date.now() - started) / 1000;

  const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
  const of = (side: Side, kind?: string) =>
    followed.filter((f) => f.side === side && (kind === undefined || f.kind === kind));
  console.log(
    `adaptive polling: ${RUNS} runs of each kind per side, ${followed.length} runs in all, took ${took.toFixed(0)} s`,
  );
  console.log('');
  console.log(
    '| runs | run time p50 (Temporal) | polls per completed task, fixed 2 s | adaptive | completed seen late, p50 / p99, fixed | adaptive |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const kind of [...Object.keys(KINDS), undefined]) {
    const [fixed, adaptive] = [of('fixed', kind), of('adaptive', kind)];
    const late = (runs: Followed[]) => {
      const d = distribution(runs.map((f) => f.lateMs));
      return `${ms(d.p50)} / ${ms(d.p99)}`;
    };
    console.log(
      `| ${kind ?? '**all**'} | ${ms(distribution([...fixed, ...adaptive].map((f) => f.runMs)).p50)} | ` +
        `${mean(fixed.map((f) => f.polls)).toFixed(1)} | ` +
        `${mean(adaptive.map((f) => f.polls)).toFixed(1)} | ${late(fixed)} | ${late(adaptive)} |`,
    );
  }
  const refused = followed.reduce((s, f) => s + f.refused, 0);
  console.log('');
  console.log(`polls refused by the limiter (500 ms), both sides: ${refused}`);
} finally {
  for (const gateway of Object.values(gateways)) await gateway?.stop();
  worker.shutdown();
  await running.catch(() => {});
  await connection.close();
  await temporal.close();
}
