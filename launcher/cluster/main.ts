// `npm run cluster`: the production-shaped stack on this machine, in the foreground. PostgreSQL,
// the Temporal server's four services as separate processes, the Web UI, three workers, two
// gateways behind HAProxy. Ctrl-C (or SIGTERM) stops everything it started, front to back.
// Settings: CLUSTER_DATA_DIR (.data/cluster), CLUSTER_PORT_BASE (17000: MCP on 17300, Temporal on
// 17233, Web UI on 18233, PostgreSQL on 17432), CLUSTER_WORKERS (3), CLUSTER_GATEWAYS (2),
// CLUSTER_ECHO=1 to see every process's output here too (it always goes to the logs folder).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processLabel } from '../line-prefixer.ts';
import { type Cluster, startCluster } from './cluster.ts';
import { defaultClusterPorts } from './ports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const say = (line: string) => process.stdout.write(`${processLabel('cluster', 16)}${line}\n`);

let cluster: Cluster | undefined;
let stopping = false;
const starting = new AbortController();

async function shutdown(reason: string, code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`stopping (${reason})...`);
  // Still starting: the start stops what it started and rejects; main's catch then exits.
  if (!cluster) {
    starting.abort();
    return;
  }
  await cluster.stop();
  say('stopped');
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => void shutdown(signal, 0));

async function main(): Promise<void> {
  const env = process.env;
  const dataDir = env.CLUSTER_DATA_DIR || join(ROOT, '.data', 'cluster');
  const ports = defaultClusterPorts(
    Number(env.CLUSTER_PORT_BASE || 17_000),
    Number(env.CLUSTER_GATEWAYS || 2),
  );
  const started = Date.now();
  say(`starting in ${dataDir} (logs in ${join(dataDir, 'logs')})`);
  cluster = await startCluster({
    dataDir,
    ports,
    workers: Number(env.CLUSTER_WORKERS || 3),
    signal: starting.signal,
    say,
    echo: env.CLUSTER_ECHO === '1' ? (line) => process.stdout.write(`${line}\n`) : undefined,
  });
  const c = cluster;
  say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  say(`  MCP endpoint      ${c.mcpUrl}   (HAProxy, round robin over ${c.gateways.length} gateways)`);
  c.gatewayUrls.forEach((url, i) => {
    say(`  gateway-${i + 1}         ${url}   (pid ${c.gateways[i]?.pid})`);
  });
  say(`  Temporal frontend ${c.temporalAddress}   (namespace default, task queue ${c.taskQueue})`);
  for (const p of Object.values(c.temporal)) say(`    ${p.name.padEnd(16)}pid ${p.pid}`);
  say(
    `  Web UI            ${c.uiUrl ?? 'not served: build it with bash scripts/install-temporal-server.sh'}`,
  );
  say(
    `  PostgreSQL        127.0.0.1:${c.ports.postgres}   (pid ${c.postgres.pid}, data ${join(c.dataDir, 'postgres')})`,
  );
  say(`  workers           ${c.workers.map((w) => `${w.name} (pid ${w.pid})`).join(', ')}`);
  say('Try it (in another terminal):');
  say(`  MCP_URL=${c.mcpUrl} npm run call -- start_mining --difficulty 22 --blocks 3`);
  say('Press Ctrl-C to stop.');
  // Anything that dies on its own stops the rest: a half cluster is not what anyone asked for.
  for (const p of c.all()) {
    p.exited?.then((how) => {
      if (!stopping) void shutdown(`${p.name} exited with ${how.signal ?? `code ${how.code}`}`, 1);
    });
  }
}

main().catch((err) => {
  // startCluster has stopped whatever it had started.
  if (starting.signal.aborted) {
    say('stopped');
    process.exit(0);
  }
  say(`failed: ${(err as Error).message}`);
  process.exit(1);
});
