// `npm run bench`: the miner first, then one run that starts its own Temporal dev server, workers and
// gateway processes and measures the gateway against raw Temporal, an OAuth access token against a
// static token, the completion notice, a peer side by side and 1,000 running tasks, then the load run;
// prints the tables and writes docs/benchmarks.md.
//
// Smaller, faster runs for trying things out: BENCH_QUICK=1 (writes no report). The OAuth part
// alone: bench/oauth.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GATEWAY_BUNDLE, GATEWAY_NODE_FLAGS } from '../gateway/runtime-flags.ts';
import { compiledGateway, GATEWAY_UNDER_TSX } from '../test/support/gateway-process.ts';
import { startTestTemporal } from '../test/support/temporal.ts';
import { measureCompletionNotice } from './completion-notice.ts';
import { renderLoad, runLoad } from './load.ts';
import { describeMachine } from './machine.ts';
import { runMinerStep } from './miner-step.ts';
import { measureOAuthSideBySide } from './oauth-side-by-side.ts';
import { measureOverhead } from './overhead.ts';
import { startPeer } from './peer/fastmcp-tasks-peer.ts';
import { measureSideBySide } from './peer-side-by-side.ts';
import { measurePush } from './push.ts';
import { type BenchResults, renderReport } from './report.ts';
import { measureScale } from './scale.ts';
import {
  BENCH_GATEWAY_ENV,
  startBareProxy,
  startGatewayProcess,
  startMiningWorker,
  startParkedWorker,
} from './stack.ts';
import { withTracingSection } from './tracing-report.ts';
import { measureTracingSideBySide, type TracingSideResult } from './tracing-side-by-side.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const PARKED_QUEUE = 'bench-parked';
const MINING_QUEUE = 'bench-mining';
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
};

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const began = performance.now();
const results: BenchResults = { machine: describeMachine(), settings: { ...settings, ...BENCH_GATEWAY_ENV } };

// The miner first, on a machine nothing else of the bench is using yet (its 2-core scaling is the
// most sensitive figure to other load).
if (QUICK) results.miner = { unavailable: 'skipped in a quick run' };
else {
  log('5/5 miner: bench/miner.ts (first, on a quiet machine)');
  results.miner = await runMinerStep(10 * 60_000);
}

let tracing: TracingSideResult | undefined;
const temporal = await startTestTemporal();
const children: { stop(): Promise<unknown> }[] = [];
const started = <T extends { stop(): Promise<unknown> }>(child: T): T => {
  children.push(child);
  return child;
};
try {
  log(
    `Temporal dev server at ${temporal.server.address}; compiling the gateway, starting workers and gateways`,
  );
  // Every gateway process runs as the container runs it: compiled, with its Node.js flags.
  const gatewayArgs = await compiledGateway();
  started(await startParkedWorker(temporal.server.address, PARKED_QUEUE));
  started(await startMiningWorker(temporal.server.address, MINING_QUEUE, temporal.dataDir));
  const taskGateway = started(
    await startGatewayProcess({
      temporalAddress: temporal.server.address,
      taskQueue: PARKED_QUEUE,
      waitBudgetMs: 0,
      nodeArgs: gatewayArgs,
    }),
  );
  const inlineGateway = started(
    await startGatewayProcess({
      temporalAddress: temporal.server.address,
      taskQueue: MINING_QUEUE,
      waitBudgetMs: 30_000,
      nodeArgs: gatewayArgs,
    }),
  );

  const bareProxy = started(await startBareProxy(temporal.server.address, PARKED_QUEUE));

  log(`1/5 gateway overhead: ${settings.calls} calls per side after ${settings.warmup} warm-up rounds`);
  results.overhead = await measureOverhead({
    url: taskGateway.url,
    bareProxy: bareProxy.url,
    client: temporal.client,
    taskQueue: PARKED_QUEUE,
    calls: settings.calls,
    warmup: settings.warmup,
  });
  await bareProxy.stop();

  log(`OAuth: tasks/get with an access token vs a static token, ${settings.oauthCalls} calls per side`);
  results.oauth = await measureOAuthSideBySide({
    temporalAddress: temporal.server.address,
    taskQueue: PARKED_QUEUE,
    nodeArgs: gatewayArgs,
    calls: settings.oauthCalls,
    warmup: settings.warmup,
  });

  log(`tracing: off vs on, ${settings.oauthCalls} calls per side`);
  tracing = await measureTracingSideBySide({
    temporalAddress: temporal.server.address,
    taskQueue: PARKED_QUEUE,
    nodeArgs: gatewayArgs,
    calls: settings.oauthCalls,
    warmup: settings.warmup,
  });

  log(`2/5 completion notice: ${settings.noticeRuns} short chains`);
  results.notice = await measureCompletionNotice({
    url: inlineGateway.url,
    client: temporal.client,
    runs: settings.noticeRuns,
    warmup: 5,
  });
  await inlineGateway.stop();

  log('3/5 peer: installing fastmcp-tasks into a throwaway virtualenv, Redis from Debian');
  const peer = await startPeer();
  if (peer.ok) {
    started(peer.peer);
    log(`3/5 peer: ${peer.peer.label}; ${settings.peerTasks} running tasks each`);
    const sides = await measureSideBySide(
      [
        { name: 'this gateway', url: taskGateway.url },
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
  } else {
    log(`3/5 peer: not measured: ${peer.reason}`);
    results.peer = { unavailable: peer.reason };
  }
  log(`push: ${settings.pushRounds} tasks each way, then ${settings.pushSubscriptions} open subscriptions`);
  const pushGateway = started(
    await startGatewayProcess({
      temporalAddress: temporal.server.address,
      taskQueue: MINING_QUEUE,
      waitBudgetMs: 0,
      nodeArgs: gatewayArgs,
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
    parkedUrl: taskGateway.url,
    parkedGatewayPid: taskGateway.child.pid as number,
    client: temporal.client,
    rounds: settings.pushRounds,
    subscriptions: settings.pushSubscriptions,
    pollIntervalMs: 2_000,
  });
  await pushGateway.stop();
  await taskGateway.stop();

  const variants = [
    {
      variant: `node ${GATEWAY_NODE_FLAGS.join(' ')} ${GATEWAY_BUNDLE} (compiled, as the container runs it)`,
      nodeArgs: gatewayArgs,
    },
    { variant: `node ${GATEWAY_UNDER_TSX.join(' ')} (npm run gateway)`, nodeArgs: GATEWAY_UNDER_TSX },
  ];
  results.scale = [];
  for (const [i, { variant, nodeArgs }] of variants.entries()) {
    log(
      `4/5 scale: ${settings.scaleTasks} running tasks, ${settings.scaleInFlight} requests in flight; ${variant}`,
    );
    const gateway = started(
      await startGatewayProcess({
        temporalAddress: temporal.server.address,
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
  }
} finally {
  for (const child of children.reverse()) await child.stop().catch(() => {});
  await temporal.close();
}

const loadOptions = {
  tasks: QUICK ? 40 : 200,
  clients: QUICK ? 5 : 20,
  difficulty: 18,
  blocks: 3,
  pollIntervalMs: 2_000,
  deadlineMs: 10 * 60_000,
};
log(`6/6 load: ${loadOptions.tasks} tasks from ${loadOptions.clients} clients (its own stack)`);
results.load = renderLoad(loadOptions, await runLoad(loadOptions));
results.seconds = (performance.now() - began) / 1000;

const rendered = renderReport(results);
const report = tracing ? withTracingSection(rendered, tracing) : rendered;
process.stdout.write(`\n${report}`);
if (QUICK) log('quick run: docs/benchmarks.md left as it was');
else {
  mkdirSync(dirname(REPORT_PATH), { recursive: true });
  writeFileSync(REPORT_PATH, report);
  log(`wrote ${REPORT_PATH}`);
}
