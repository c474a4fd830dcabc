// Load run: 200 start_mining tasks from 20 concurrent authenticated clients against the gateway as
// its own process, each task polled at the advertised pollIntervalMs until it ends. Half the
// clients declare the Tasks extension (tasks/get), half poll with get_mining_result. Prints tasks
// started, completed, lost (must be 0), HTTP 5xx (must be 0), 429s and peak gateway RSS.
//
//   npm run bench:load        (LOAD_TASKS, LOAD_CLIENTS, LOAD_DIFFICULTY, LOAD_BLOCKS override)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../launcher/free-port.ts';
import { startGatewayProcess } from '../test/support/gateway-process.ts';
import { PLAIN_CLIENT, rpc, TASKS_CLIENT } from '../test/support/mcp-http.ts';
import { startTestTemporal } from '../test/support/temporal.ts';
import { startWorker } from '../test/support/worker-process.ts';
import { RssSampler } from './rss-sampler.ts';

export interface LoadOptions {
  tasks: number;
  clients: number;
  difficulty: number;
  blocks: number;
  pollIntervalMs: number;
  /** Give up on a task after this long: it then counts as lost. */
  deadlineMs: number;
}

export interface LoadResult {
  started: number;
  completed: number;
  lost: number;
  http5xx: number;
  rateLimited: number;
  otherErrors: number;
  polls: number;
  seconds: number;
  peakRssMb: number;
  startRssMb: number;
}

const log = (line: string) => process.stderr.write(`load: ${line}\n`);

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const temporal = await startTestTemporal();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-load-'));
  const taskQueue = 'bench-load';
  const env = {
    TEMPORAL_ADDRESS: temporal.server.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MCP_DATA_DIR: dataDir,
  };
  const workers = [startWorker(env), startWorker(env)];
  const principals = Array.from({ length: options.clients }, (_, i) => ({
    name: `client-${i + 1}`,
    token: `load-token-${i + 1}-${'x'.repeat(16)}`,
  }));
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
    const pid = gateway.child.pid;
    if (!pid) throw new Error('no gateway pid');
    const rss = new RssSampler(pid, 50);
    const counts = {
      started: 0,
      completed: 0,
      lost: 0,
      http5xx: 0,
      rateLimited: 0,
      otherErrors: 0,
      polls: 0,
    };
    const perClient = Math.ceil(options.tasks / options.clients);
    const began = performance.now();

    const call = async (
      principal: (typeof principals)[number],
      tasks: boolean,
      method: string,
      params: Record<string, unknown>,
    ) => {
      const answer = await rpc(gateway.url, method, params, tasks ? TASKS_CLIENT : PLAIN_CLIENT, {
        authorization: `Bearer ${principal.token}`,
      });
      if (answer.httpStatus >= 500) counts.http5xx++;
      else if (answer.httpStatus === 429) counts.rateLimited++;
      else if (answer.error) counts.otherErrors++;
      return answer;
    };

    const client = async (principal: (typeof principals)[number], index: number) => {
      const tasks = index % 2 === 0;
      const mine = Math.min(perClient, options.tasks - index * perClient);
      const ids: string[] = [];
      for (let i = 0; i < mine; i++) {
        const answer = await call(principal, tasks, 'tools/call', {
          name: 'start_mining',
          arguments: {
            difficulty: options.difficulty,
            blocks: options.blocks,
            data: `${principal.name}/${i}`,
            idempotency_key: `${principal.name}-${i}`,
          },
        });
        const id =
          answer.result?.taskId ??
          (answer.result?.structuredContent as { workflow_id?: string })?.workflow_id;
        if (typeof id !== 'string') throw new Error(`start failed: ${JSON.stringify(answer)}`);
        counts.started++;
        ids.push(id);
      }
      const open = new Map(ids.map((id) => [id, Date.now()]));
      const deadline = Date.now() + options.deadlineMs;
      while (open.size > 0 && Date.now() < deadline) {
        await delay(options.pollIntervalMs);
        for (const id of [...open.keys()]) {
          counts.polls++;
          const answer = tasks
            ? await call(principal, true, 'tasks/get', { taskId: id })
            : await call(principal, false, 'tools/call', {
                name: 'get_mining_result',
                arguments: { workflow_id: id },
              });
          const status = tasks
            ? answer.result?.status
            : (answer.result?.structuredContent as { status?: string } | undefined)?.status;
          if (status === undefined || status === 'working' || status === 'running') continue;
          open.delete(id);
          if (status === 'completed') counts.completed++;
          else {
            counts.lost++;
            log(`${principal.name}: task ${id} ended ${status}`);
          }
        }
      }
      counts.lost += open.size;
    };

    const progress = setInterval(
      () => log(`${counts.started} started, ${counts.completed} completed, ${counts.polls} polls`),
      5_000,
    );
    await Promise.all(principals.map((p, i) => client(p, i)));
    clearInterval(progress);
    const report = rss.stop();
    return {
      ...counts,
      seconds: (performance.now() - began) / 1000,
      peakRssMb: Math.max(report.peakSampledMb, report.highWaterMb),
      startRssMb: report.startMb,
    };
  } finally {
    await gateway.stop();
    await Promise.all(workers.map((w) => w.stop()));
    await temporal.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function renderLoad(options: LoadOptions, r: LoadResult): string {
  return [
    `Load: ${options.tasks} start_mining tasks (difficulty ${options.difficulty}, ${options.blocks} blocks) from ` +
      `${options.clients} concurrent clients, polled every ${options.pollIntervalMs} ms`,
    '',
    '| tasks started | completed | lost | HTTP 5xx | HTTP 429 | other errors | polls | seconds | gateway RSS start → peak |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${r.started} | ${r.completed} | ${r.lost} | ${r.http5xx} | ${r.rateLimited} | ${r.otherErrors} | ${r.polls} | ` +
      `${r.seconds.toFixed(1)} | ${r.startRssMb.toFixed(0)} → ${r.peakRssMb.toFixed(0)} MB |`,
  ].join('\n');
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
  const ok = result.lost === 0 && result.http5xx === 0 && result.completed === options.tasks;
  log(ok ? 'ok: nothing lost, no 5xx' : 'FAILED: tasks lost or 5xx answers');
  process.exit(ok ? 0 : 1);
}
