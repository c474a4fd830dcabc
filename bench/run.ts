// `npm run bench`: the miner first, then one run that starts its own Temporal dev server, workers and
// gateway processes and measures the gateway against raw Temporal, an OAuth access token against a
// static token, tracing off against on, the completion notice, a peer side by side, push against
// polling and 1,000 running tasks, then the limits (a start under the cap against one without, and
// how fast a dead Temporal is said, on a stack of their own), then a noisy neighbour (one tenant's
// short call while another floods, fairness on and off), then the load run; prints the tables
// and writes docs/benchmarks.md.
//
// The report is written again after every part (bench/part-runner.ts, bench/report-file.ts): parts
// not run yet are marked pending; a part that throws is marked failed, with its error, and the next
// part runs all the same. A SIGINT or SIGTERM (or a kill) leaves the parts measured so far in the
// report. Exits 1 if a part failed.
//
// Smaller, faster runs for trying things out: BENCH_QUICK=1 (prints the report at the end and
// writes none, unless BENCH_REPORT names a file). BENCH_REPORT=<file>: the report goes there instead
// of docs/benchmarks.md. BENCH_PARTS=overhead,peer: only the parts named (overhead, oauth, tracing,
// notice, peer, push, waits, scale, miner, limits, noisy, load); the others' sections are kept from
// the file as the run that made them wrote them, each with that run's Run line (bench/report-file.ts),
// and every section is numbered once. The OAuth part alone: bench/oauth.ts.
import { fileURLToPath } from 'node:url';
import { GATEWAY_BUNDLE, GATEWAY_NODE_FLAGS } from '../gateway/runtime-flags.ts';
import { compiledGateway, GATEWAY_UNDER_TSX } from '../test/support/gateway-process.ts';
import { measureCompletionNotice } from './completion-notice.ts';
import { measureWaits } from './idle-waits.ts';
import { measureLimits } from './limits.ts';
import { runLoad } from './load.ts';
import { describeMachine } from './machine.ts';
import { runMinerStep } from './miner-step.ts';
import { measureNoisy } from './noisy.ts';
import { measureOAuthSideBySide } from './oauth-side-by-side.ts';
import { measureOverhead } from './overhead.ts';
import { PartRunner } from './part-runner.ts';
import { startPeer } from './peer/fastmcp-tasks-peer.ts';
import { measureSideBySide } from './peer-side-by-side.ts';
import { measurePush } from './push.ts';
import { type BenchResults, type PartKey, renderReport } from './report.ts';
import { writeReport } from './report-file.ts';
import { MINING_QUEUE, PARKED_QUEUE, type RunStack, startRunStack } from './run-stack.ts';
import { measureScale } from './scale.ts';
import { BENCH_GATEWAY_ENV, startGatewayProcess } from './stack.ts';
import { measureTracingSideBySide } from './tracing-side-by-side.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const REPORT_PATH =
  process.env.BENCH_REPORT || fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
/** A quick run writes its report only where BENCH_REPORT says. */
const WRITE = !QUICK || Boolean(process.env.BENCH_REPORT);
const settings = {
  calls: QUICK ? 60 : 500,
  warmup: QUICK ? 10 : 20,
  noticeRuns: QUICK ? 40 : 200,
  peerTasks: QUICK ? 20 : 100,
  peerRounds: QUICK ? 1 : 3,
  peerSeconds: QUICK ? 2 : 5,
  peerConcurrency: 10,
  scaleTasks: QUICK ? 200 : 1000,
  scaleInFlight: 25,
  oauthCalls: QUICK ? 60 : 300,
  pushRounds: QUICK ? 10 : 40,
  pushSubscriptions: 200,
  capCalls: QUICK ? 60 : 200,
  waitsWatched: QUICK ? 5 : 10,
  waitsIdleMs: QUICK ? 25_000 : 45_000,
  waitsRounds: QUICK ? 10 : 30,
};
const loadOptions = {
  tasks: QUICK ? 40 : 200,
  clients: QUICK ? 5 : 20,
  difficulty: 18,
  blocks: 3,
  pollIntervalMs: 2_000,
  deadlineMs: 10 * 60_000,
};
/** The parts measured against the run's own stack (bench/run-stack.ts), in the order they run. */
const STACK_PARTS: PartKey[] = ['overhead', 'oauth', 'tracing', 'notice', 'peer', 'push', 'waits', 'scale'];
const ALL_PARTS: PartKey[] = ['miner', ...STACK_PARTS, 'limits', 'noisy', 'load'];
/** BENCH_PARTS: the parts to run, comma-separated; every part when unset. */
const ONLY = onlyParts(process.env.BENCH_PARTS);

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const began = performance.now();
const results: BenchResults = {
  machine: describeMachine(),
  settings: { ...settings, ...BENCH_GATEWAY_ENV, ...(ONLY ? { BENCH_PARTS: [...ONLY].join('+') } : {}) },
  ...(ONLY ? { measured: [...ONLY] } : {}),
};
const save = () => {
  if (!WRITE) return;
  try {
    writeReport(REPORT_PATH, renderReport(results));
    log(`wrote ${REPORT_PATH}`);
  } catch (err) {
    log(`could not write ${REPORT_PATH}: ${err instanceof Error ? err.message : String(err)}`);
  }
};
const runner = new PartRunner(results, save, log, ONLY);

// The miner first, on a machine nothing else of the bench is using yet (its 2-core scaling is the
// most sensitive figure to other load).
if (QUICK) results.miner = { unavailable: 'skipped in a quick run' };
else {
  await part('miner', '5/5 miner: bench/miner.ts (first, on a quiet machine)', async () => {
    results.miner = await runMinerStep(10 * 60_000);
  });
}

const needsStack = STACK_PARTS.some((key) => runner.wants(key));
const stack = await (needsStack ? startRunStack(log) : Promise.resolve(undefined)).catch((err: unknown) => {
  const why = err instanceof Error ? err.message : String(err);
  log(`the stack did not start: ${why}`);
  runner.skip(
    STACK_PARTS,
    `not run: the bench's Temporal dev server, workers or gateways did not start: ${why}`,
  );
  return undefined;
});
if (stack) {
  runner.onStop(() => stack.stop());
  try {
    await stackParts(stack);
  } finally {
    await stack.stop().catch((err: unknown) => log(`stopping the stack: ${String(err)}`));
  }
}

const limitsLine = `limits: a start under the cap vs without, ${settings.capCalls} calls per side; then Temporal killed`;
await part('limits', limitsLine, async () => {
  results.limits = await measureLimits({
    nodeArgs: await compiledGateway(),
    calls: settings.capCalls,
    warmup: settings.warmup,
  });
});

const noisyOptions = {
  millisecondCalls: QUICK ? 60 : 200,
  calls: QUICK ? 5 : 10,
  capMs: QUICK ? 20_000 : 30_000,
};
const noisyLine = `noisy: bob's short call alone and during alice's long calls (blocks of ms, then of s), fairness on and off`;
await part('noisy', noisyLine, async () => {
  results.noisy = await measureNoisy(noisyOptions, log);
});

const loadLine = `6/6 load: ${loadOptions.tasks} tasks from ${loadOptions.clients} clients (its own stack)`;
await part('load', loadLine, async () => {
  results.load = { options: loadOptions, result: await runLoad(loadOptions) };
});
results.seconds = (performance.now() - began) / 1000;
save();
process.stdout.write(`\n${renderReport(results)}`);
if (!WRITE) log('quick run: docs/benchmarks.md left as it was');
const failed = runner.failures;
if (failed.length > 0) log(`FAILED parts: ${failed.join(', ')} (their sections say why)`);
// Exits rather than waits: a part that failed half-way may have left a timer or a socket open.
process.exit(failed.length > 0 ? 1 : 0);

/** Runs a part if the run wants it, saying so first. */
function part(key: PartKey, line: string, measure: () => Promise<void>): Promise<void> {
  if (runner.wants(key)) log(line);
  return runner.run(key, measure);
}

function onlyParts(value: string | undefined): ReadonlySet<PartKey> | undefined {
  if (!value) return undefined;
  const named = value.split(',').map((name) => name.trim());
  const unknown = named.filter((name) => !ALL_PARTS.includes(name as PartKey));
  if (unknown.length > 0)
    throw new Error(`BENCH_PARTS: no part named ${unknown.join(', ')} (parts: ${ALL_PARTS.join(', ')})`);
  return new Set(named as PartKey[]);
}

async function stackParts(stack: RunStack): Promise<void> {
  const { temporal, gatewayArgs, taskGateway, inlineGateway, bareProxy } = stack;
  const temporalAddress = temporal.server.address;
  const overheadLine = `1/5 gateway overhead: ${settings.calls} calls per side after ${settings.warmup} warm-up rounds`;
  await part('overhead', overheadLine, async () => {
    results.overhead = await measureOverhead({
      url: taskGateway.url,
      bareProxy: bareProxy.url,
      client: temporal.client,
      taskQueue: PARKED_QUEUE,
      calls: settings.calls,
      warmup: settings.warmup,
    });
  });
  await bareProxy.stop().catch(() => {});
  const side = { temporalAddress, taskQueue: PARKED_QUEUE, nodeArgs: gatewayArgs, warmup: settings.warmup };
  const oauthLine = `OAuth: tasks/get with an access token vs a static token, ${settings.oauthCalls} calls per side`;
  await part('oauth', oauthLine, async () => {
    results.oauth = await measureOAuthSideBySide({ ...side, calls: settings.oauthCalls });
  });
  await part('tracing', `tracing: off vs on, ${settings.oauthCalls} calls per side`, async () => {
    results.tracing = await measureTracingSideBySide({ ...side, calls: settings.oauthCalls });
  });
  await part('notice', `2/5 completion notice: ${settings.noticeRuns} short chains`, async () => {
    results.notice = await measureCompletionNotice({
      url: inlineGateway.url,
      client: temporal.client,
      runs: settings.noticeRuns,
      warmup: 5,
    });
  });
  await inlineGateway.stop().catch(() => {});
  await runner.run('peer', () => measurePeer(stack));
  await runner.run('push', () => measurePushPart(stack));
  await runner.run('waits', () => measureWaitsPart(stack));
  await taskGateway.stop().catch(() => {});
  await runner.run('scale', () => measureScales(stack));
}

async function measurePeer(stack: RunStack): Promise<void> {
  log('3/5 peer: installing fastmcp-tasks into a throwaway virtualenv, Redis from Debian');
  const peer = await startPeer();
  if (!peer.ok) {
    log(`3/5 peer: not measured: ${peer.reason}`);
    results.peer = { unavailable: peer.reason };
    return;
  }
  stack.started(peer.peer);
  log(`3/5 peer: ${peer.peer.label}; ${settings.peerTasks} running tasks each`);
  const sides = await measureSideBySide(
    [
      { name: 'this gateway', url: stack.taskGateway.url },
      { name: peer.peer.label, url: peer.peer.url },
    ],
    {
      tasks: settings.peerTasks,
      rounds: settings.peerRounds,
      seconds: settings.peerSeconds,
      concurrency: settings.peerConcurrency,
    },
  );
  results.peer = { sides };
  await peer.peer.stop();
}

async function measurePushPart(stack: RunStack): Promise<void> {
  log(`push: ${settings.pushRounds} tasks each way, then ${settings.pushSubscriptions} open subscriptions`);
  const pushGateway = stack.started(
    await startGatewayProcess({
      temporalAddress: stack.temporal.address,
      taskQueue: MINING_QUEUE,
      waitBudgetMs: 0,
      nodeArgs: stack.gatewayArgs,
      // Push against polling at a fixed 2 s, as this part has always measured it; the adaptive
      // interval has its own bench (bench/adaptive-polling.ts).
      env: {
        MCP_POLL_FAST_INTERVAL_MS: '2000',
        MCP_POLL_INPUT_INTERVAL_MS: '2000',
        MCP_POLL_MAX_INTERVAL_MS: '2000',
        MCP_POLL_JITTER_PERCENT: '0',
      },
    }),
  );
  results.push = await measurePush({
    url: pushGateway.url,
    parkedUrl: stack.taskGateway.url,
    parkedGatewayPid: stack.taskGateway.child.pid as number,
    client: stack.temporal.client,
    rounds: settings.pushRounds,
    subscriptions: settings.pushSubscriptions,
    pollIntervalMs: 2_000,
  });
  await pushGateway.stop();
}

async function measureWaitsPart(stack: RunStack): Promise<void> {
  const { waitsWatched: watched, waitsIdleMs: idleMs, waitsRounds: rounds } = settings;
  log(
    `waits: ${watched} push watches on tasks waiting for a person over ${idleMs} ms, ${rounds} input rounds`,
  );
  const gateway = stack.started(
    await startGatewayProcess({
      temporalAddress: stack.temporal.server.address,
      taskQueue: MINING_QUEUE,
      waitBudgetMs: 0,
      nodeArgs: stack.gatewayArgs,
    }),
  );
  results.waits = await measureWaits({
    url: gateway.url,
    client: stack.temporal.client,
    watched,
    idleMs,
    rounds,
  });
  await gateway.stop();
}

/** Both variants of the scale part; the report is saved after the first, too. */
async function measureScales(stack: RunStack): Promise<void> {
  const variants = [
    {
      variant: `node ${GATEWAY_NODE_FLAGS.join(' ')} ${GATEWAY_BUNDLE} (compiled, as the container runs it)`,
      nodeArgs: stack.gatewayArgs,
    },
    { variant: `node ${GATEWAY_UNDER_TSX.join(' ')} (npm run gateway)`, nodeArgs: GATEWAY_UNDER_TSX },
  ];
  results.scale = [];
  for (const [i, { variant, nodeArgs }] of variants.entries()) {
    log(
      `4/5 scale: ${settings.scaleTasks} running tasks, ${settings.scaleInFlight} requests in flight; ${variant}`,
    );
    const gateway = stack.started(
      await startGatewayProcess({
        temporalAddress: stack.temporal.address,
        taskQueue: PARKED_QUEUE,
        waitBudgetMs: 1_000,
        nodeArgs,
      }),
    );
    results.scale.push(
      await measureScale({
        variant,
        url: gateway.url,
        gatewayPid: gateway.child.pid as number,
        tasks: settings.scaleTasks,
        inFlight: settings.scaleInFlight,
        cancel: i === 0,
      }),
    );
    await gateway.stop();
    if (i < variants.length - 1) save();
  }
}
