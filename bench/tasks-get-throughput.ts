// Closed-loop tasks/get load: `concurrency` clients, each polling the next task id as soon as its
// previous answer arrived, for a fixed time. Counts answers, errors and latency.
import { rpc } from '../test/support/mcp-http.ts';

export interface ThroughputSample {
  answers: number;
  errors: number;
  seconds: number;
  latencies: number[];
  firstError?: string;
}

export async function pollTasksFor(
  url: URL,
  taskIds: string[],
  options: { seconds: number; concurrency: number },
): Promise<ThroughputSample> {
  const start = performance.now();
  const deadline = start + options.seconds * 1000;
  const sample: ThroughputSample = { answers: 0, errors: 0, seconds: 0, latencies: [] };
  let next = 0;
  const client = async () => {
    while (performance.now() < deadline) {
      const taskId = taskIds[next++ % taskIds.length] as string;
      const sent = performance.now();
      try {
        const answer = await rpc(url, 'tasks/get', { taskId });
        if (answer.result?.status !== 'working') throw new Error(JSON.stringify(answer).slice(0, 300));
        sample.answers++;
        sample.latencies.push(performance.now() - sent);
      } catch (err) {
        sample.errors++;
        sample.firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  sample.seconds = (performance.now() - start) / 1000;
  return sample;
}
