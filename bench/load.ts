// Load run: 200 start_mining tasks from 20 concurrent authenticated clients against the gateway as
// its own process, each task polled at the advertised pollIntervalMs until it ends. Half the
// clients declare the Tasks extension (tasks/get), half poll with get_mining_result. Every outcome
// is counted, none stops the run (bench/load-outcomes.ts): completed, ended otherwise, refused at
// its start by reason, lost; every error answer by reason or HTTP status; peak gateway RSS.
//
//   npm run bench:load        (LOAD_TASKS, LOAD_CLIENTS, LOAD_DIFFICULTY, LOAD_BLOCKS override)
//
// Prints the whole count, then exits 1 if a task was lost or ended other than completed, or any
// answer was a 5xx, temporal_unavailable, internal or no answer at all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../launcher/free-port.ts';
import { startGatewayProcess } from '../test/support/gateway-process.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { startWorker } from '../test/support/worker-process.ts';
import { runClient } from './load-client.ts';
import {
  emptyCounts,
  type LoadResult,
  type LoadSettings,
  loadProblems,
  renderLoad,
} from './load-outcomes.ts';
import { RssSampler } from './rss-sampler.ts';

export interface LoadOptions extends LoadSettings {
  /** Give up on a task after this long: it then counts as lost. */
  deadlineMs: number;
}

const log = (line: string) => process.stderr.write(`load: ${line}\n`);

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const temporal = await startOwnTestTemporal();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-load-'));
  const env = {
    TEMPORAL_ADDRESS: temporal.server.address,
    TEMPORAL_TASK_QUEUE: 'bench-load',
    MCP_DATA_DIR: dataDir,
  };
  const workers = [startWorker(env), startWorker(env)];
  const principals = Array.from({ length: options.clients }, (_, i) => ({
    name: `client-${i + 1}`,
    token: `load-token-${i + 1}-${'x'.repeat(16)}`,
  }));
  try {
    const gateway = await startGatewayProcess(await freePort(), {
      ...env,
      MCP_AUTH_TOKENS: principals.map((p) => `${p.name}:${p.token}`).join(','),
      MCP_WAIT_BUDGET_MS: '0',
      MCP_POLL_INTERVAL_MS: String(options.pollIntervalMs),
      // Polls faster than the advertised pace are refused: well-behaved clients must never see a 429.
      MCP_POLL_MIN_INTERVAL_MS: String(Math.floor(options.pollIntervalMs * 0.9)),
    });
    try {
      await Promise.all(workers.map((w) => w.ready));
      return await drive(gateway, principals, options);
    } finally {
      await gateway.stop();
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await temporal.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function drive(
  gateway: Awaited<ReturnType<typeof startGatewayProcess>>,
  principals: { name: string; token: string }[],
  options: LoadOptions,
): Promise<LoadResult> {
  const pid = gateway.child.pid;
  if (!pid) throw new Error('no gateway pid');
  const rss = new RssSampler(pid, 50);
  const counts = emptyCounts();
  const perClient = Math.ceil(options.tasks / options.clients);
  const began = performance.now();
  const progress = setInterval(
    () => log(`${counts.started} started, ${counts.completed} completed, ${counts.polls} polls`),
    5_000,
  );
  try {
    await Promise.all(
      principals.map((principal, i) =>
        runClient({
          ...options,
          url: gateway.url,
          principal,
          tasksExtension: i % 2 === 0,
          count: Math.max(0, Math.min(perClient, options.tasks - i * perClient)),
          counts,
          log,
        }),
      ),
    );
  } finally {
    clearInterval(progress);
  }
  const report = rss.stop();
  return {
    ...counts,
    seconds: (performance.now() - began) / 1000,
    peakRssMb: Math.max(report.peakSampledMb, report.highWaterMb),
    startRssMb: report.startMb,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const options: LoadOptions = {
    tasks: number('LOAD_TASKS', 200),
    clients: number('LOAD_CLIENTS', 20),
    difficulty: number('LOAD_DIFFICULTY', 18),
    blocks: number('LOAD_BLOCKS', 3),
    pollIntervalMs: number('LOAD_POLL_INTERVAL_MS', 2_000),
    deadlineMs: number('LOAD_DEADLINE_MS', 10 * 60_000),
  };
  log(
    `${options.tasks} tasks from ${options.clients} clients; starting Temporal, two workers and the gateway`,
  );
  const result = await runLoad(options);
  process.stdout.write(`${renderLoad(options, result)}\n`);
  const problems = loadProblems(result);
  log(problems.length === 0 ? 'ok: nothing lost, no 5xx' : `FAILED: ${problems.join('; ')}`);
  process.exit(problems.length === 0 ? 0 : 1);
}
