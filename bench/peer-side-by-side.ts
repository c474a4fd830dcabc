// Part 3: tasks/get throughput with 100 running tasks, this gateway next to a peer runtime of the
// same Tasks extension serving an equivalent tool. Both get the same client code and load; the
// tasks are created side by side (creation latency of both), then the load windows alternate.
import { createTask } from './overhead.ts';
import { type Distribution, distribution, timed } from './stats.ts';
import { pollTasksFor, type ThroughputSample } from './tasks-get-throughput.ts';

export interface ServerUnderTest {
  name: string;
  url: URL;
}

export interface SideResult {
  name: string;
  creation: Distribution;
  getsPerSecond: number;
  getLatency: Distribution;
  errors: number;
  firstError?: string;
}

export async function measureSideBySide(
  servers: ServerUnderTest[],
  options: { tasks: number; rounds: number; seconds: number; concurrency: number },
): Promise<SideResult[]> {
  const creations = servers.map(() => [] as number[]);
  const taskIds = servers.map(() => [] as string[]);
  for (let i = 0; i < options.tasks; i++) {
    for (let k = 0; k < servers.length; k++) {
      const s = (i + k) % servers.length;
      const server = servers[s] as ServerUnderTest;
      taskIds[s]?.push(await timed(creations[s] as number[], () => createTask(server.url)));
    }
  }
  const samples = servers.map(() => [] as ThroughputSample[]);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < servers.length; k++) {
      const s = (round + k) % servers.length;
      const server = servers[s] as ServerUnderTest;
      samples[s]?.push(await pollTasksFor(server.url, taskIds[s] as string[], options));
    }
  }
  return servers.map((server, s) => {
    const mine = samples[s] as ThroughputSample[];
    const answers = mine.reduce((n, x) => n + x.answers, 0);
    const seconds = mine.reduce((n, x) => n + x.seconds, 0);
    const firstError = mine.find((x) => x.firstError)?.firstError;
    return {
      name: server.name,
      creation: distribution(creations[s] as number[]),
      getsPerSecond: answers / seconds,
      getLatency: distribution(mine.flatMap((x) => x.latencies)),
      errors: mine.reduce((n, x) => n + x.errors, 0),
      ...(firstError ? { firstError } : {}),
    };
  });
}
