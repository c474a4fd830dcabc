// `npm run bench:profile`: where a gateway's time goes under the tasks/get load of part 3 (100
// parked running tasks, 10 clients polling in a closed loop): the compiled gateway runs with
// --cpu-prof, and its profile's self time is summed by where the code lives (the gateway's own
// folders, each dependency, Node.js itself), printed largest first with the throughput reached.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledGateway } from '../test/support/gateway-process.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { createTask } from './overhead.ts';
import { startGatewayProcess, startParkedWorker } from './stack.ts';
import { pollTasksFor } from './tasks-get-throughput.ts';

const TASKS = 100;
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 15);
const QUEUE = 'bench-profile';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a dependency by package name, the gateway by folder, or Node.js. */
function placeOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  // The compiled gateway is one bundle: its functions are told apart by name only.
  if (url.includes('gateway-under-test')) return 'the gateway (its compiled bundle)';
  const dependency = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (dependency) return dependency[1] as string;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  return url.replace(/^file:\/\//, '');
}

/** Self time summed by `keyOf` of each sampled frame, largest first. */
function selfTime(profile: CpuProfile, keyOf: (node: ProfileNode) => string): [string, number][] {
  const key = new Map(profile.nodes.map((n) => [n.id, keyOf(n)]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const k = key.get(id) ?? '(unknown)';
    totals.set(k, (totals.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return [...totals].sort((a, b) => b[1] - a[1]);
}

function printTable(heading: string, rows: [string, number][], total: number): void {
  console.log(`\n| ${heading} | self time | share |\n| --- | --- | --- |`);
  for (const [where, us] of rows.slice(0, 15)) {
    console.log(`| ${where} | ${(us / 1e3).toFixed(0)} ms | ${((100 * us) / total).toFixed(1)}% |`);
  }
}

const temporal = await startOwnTestTemporal();
const profileDir = mkdtempSync(join(tmpdir(), 'gateway-profile-'));
const worker = await startParkedWorker(temporal.server.address, QUEUE);
const nodeArgs = await compiledGateway();
const gateway = await startGatewayProcess({
  temporalAddress: temporal.server.address,
  taskQueue: QUEUE,
  waitBudgetMs: 0,
  nodeArgs: [`--cpu-prof`, `--cpu-prof-dir=${profileDir}`, ...nodeArgs],
});
try {
  const taskIds: string[] = [];
  for (let i = 0; i < TASKS; i++) taskIds.push(await createTask(gateway.url));
  await pollTasksFor(gateway.url, taskIds, { seconds: 3, concurrency: 10 }); // warm-up
  const sample = await pollTasksFor(gateway.url, taskIds, { seconds: SECONDS, concurrency: 10 });
  await gateway.stop('SIGTERM'); // writes the profile on exit
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('the gateway wrote no CPU profile');
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
  const place = (n: ProfileNode) => placeOf(n.callFrame.url, n.callFrame.functionName);
  const rows = selfTime(profile, place);
  const total = rows.reduce((n, [, us]) => n + us, 0);
  console.log(
    `tasks/get: ${(sample.answers / sample.seconds).toFixed(0)} per s over ${sample.seconds.toFixed(1)} s, ` +
      `${sample.errors} errors; gateway CPU profile ${(total / 1e6).toFixed(1)} s of samples`,
  );
  printTable('where', rows, total);
  const fn = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} (${place(n)})`;
  printTable('function', selfTime(profile, fn), total);
} finally {
  await gateway.stop('SIGKILL').catch(() => {});
  await worker.stop().catch(() => {});
  await temporal.close();
  if (process.env.BENCH_PROFILE_KEEP) console.log(`profile kept in ${profileDir}`);
  else rmSync(profileDir, { recursive: true, force: true });
}
