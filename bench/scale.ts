// Part 4: 1,000 tasks running at once through the gateway process: created with tools/call (each
// waits its budget, then answers with a task), every one polled with tasks/get, then every one
// cancelled with tasks/cancel (when asked); `inFlight` requests at a time. Counts errors and samples the
// gateway's resident memory throughout.
import { rpc } from '../test/support/mcp-http.ts';
import { inLanes } from './lanes.ts';
import { PARKED_ARGS } from './overhead.ts';
import { type RssReport, RssSampler } from './rss-sampler.ts';
import { type Distribution, distribution } from './stats.ts';

interface ScalePhase {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  latency: Distribution;
  firstError?: string;
}

export interface ScaleResult {
  /** How the gateway process ran, e.g. "node --import tsx gateway/main.ts". */
  variant: string;
  tasks: number;
  inFlight: number;
  phases: ScalePhase[];
  rss: RssReport;
}

/** Runs `work` for every index, `inFlight` at a time; times each and counts its errors. */
async function phase(
  name: string,
  count: number,
  inFlight: number,
  work: (i: number) => Promise<void>,
): Promise<ScalePhase> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  await inLanes(count, inFlight, async (i) => {
    const sent = performance.now();
    try {
      await work(i);
      latencies.push(performance.now() - sent);
    } catch (err) {
      errors++;
      firstError ??= (err as Error).message.slice(0, 300);
    }
  });
  return {
    name,
    requests: count,
    errors,
    seconds: (performance.now() - start) / 1000,
    latency: distribution(latencies),
    ...(firstError ? { firstError } : {}),
  };
}

function expect(answer: Awaited<ReturnType<typeof rpc>>, check: (r: Record<string, unknown>) => boolean) {
  if (!answer.result || !check(answer.result))
    throw new Error(`HTTP ${answer.httpStatus}: ${JSON.stringify(answer.error ?? answer.result)}`);
  return answer.result;
}

export async function measureScale(options: {
  variant: string;
  url: URL;
  gatewayPid: number;
  tasks: number;
  inFlight: number;
  /** Also cancel every task through the gateway (else they are left to the throwaway server). */
  cancel: boolean;
}): Promise<ScaleResult> {
  const { url, tasks, inFlight } = options;
  const sampler = new RssSampler(options.gatewayPid);
  const taskIds: string[] = [];
  const phases: ScalePhase[] = [];
  let rss: RssReport;
  try {
    phases.push(
      await phase('tools/call → task', tasks, inFlight, async (i) => {
        const created = expect(
          await rpc(url, 'tools/call', { name: 'start_mining', arguments: PARKED_ARGS }),
          (r) => r.resultType === 'task',
        );
        taskIds[i] = String(created.taskId);
      }),
    );
    const ids = taskIds.filter(Boolean);
    phases.push(
      await phase('tasks/get (all running)', ids.length, inFlight, async (i) => {
        expect(await rpc(url, 'tasks/get', { taskId: ids[i] }), (r) => r.status === 'working');
      }),
    );
    if (options.cancel) {
      phases.push(
        await phase('tasks/cancel', ids.length, inFlight, async (i) => {
          expect(await rpc(url, 'tasks/cancel', { taskId: ids[i] }), () => true);
        }),
      );
    }
  } finally {
    rss = sampler.stop();
  }
  return { variant: options.variant, tasks, inFlight, phases, rss };
}
