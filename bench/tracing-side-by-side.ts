// Part 9: what tracing costs, off and on side by side. Two gateway processes (compiled, wait budget
// 0) on the same parked queue: one with no OTEL_* setting (tracing off: no SDK loaded), one
// exporting every span over OTLP/HTTP to a real Jaeger. `tools/call` (a task handle: the start and
// its spans) and `tasks/get` (describe ‖ query, and the link to the run's trace), one call at a
// time, the sides in rotating order on every round. The worker does not trace: this is the
// gateway's cost.
import { freePort } from '../launcher/free-port.ts';
import { ensureJaeger, startJaeger } from '../launcher/jaeger.ts';
import { createTask, getTask } from './overhead.ts';
import { startGatewayProcess } from './stack.ts';
import { type Distribution, distribution, timed } from './stats.ts';

interface TracingSide {
  create: Distribution;
  get: Distribution;
}

export interface TracingSideResult {
  off: TracingSide;
  on: TracingSide;
  backend: string;
}

export async function measureTracingSideBySide(options: {
  temporalAddress: string;
  /** A queue served by a workflows-only worker: runs started there stay Running. */
  taskQueue: string;
  nodeArgs: string[];
  calls: number;
  warmup: number;
}): Promise<TracingSideResult> {
  const jaeger = await startJaeger({
    binary: process.env.JAEGER_PATH || (await ensureJaeger()),
    otlpHttpPort: await freePort(),
    uiPort: await freePort(),
    queryGrpcPort: await freePort(),
  });
  const stops: (() => Promise<unknown>)[] = [() => jaeger.stop()];
  try {
    const gateway = async (env: Record<string, string>) => {
      const started = await startGatewayProcess({
        temporalAddress: options.temporalAddress,
        taskQueue: options.taskQueue,
        waitBudgetMs: 0,
        nodeArgs: options.nodeArgs,
        env,
      });
      stops.unshift(() => started.stop());
      return started;
    };
    const off = await gateway({});
    const on = await gateway({
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
      OTEL_SERVICE_NAME: 'bench-gateway',
    });
    const sides = [
      { url: off.url, create: [] as number[], get: [] as number[], taskId: await createTask(off.url) },
      { url: on.url, create: [] as number[], get: [] as number[], taskId: await createTask(on.url) },
    ];
    for (let round = 0; round < options.warmup + options.calls; round++) {
      const keep = round >= options.warmup;
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(round + k) % sides.length] as (typeof sides)[number];
        await timed(keep ? side.create : [], () => createTask(side.url));
        await timed(keep ? side.get : [], () => getTask(side.url, side.taskId));
      }
    }
    const [offSide, onSide] = sides as [(typeof sides)[number], (typeof sides)[number]];
    return {
      off: { create: distribution(offSide.create), get: distribution(offSide.get) },
      on: { create: distribution(onSide.create), get: distribution(onSide.get) },
      backend: 'Jaeger v1.76.0 all-in-one (in-memory), OTLP/HTTP, batch span processor defaults',
    };
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}
