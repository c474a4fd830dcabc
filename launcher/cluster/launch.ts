// The cluster's processes as they start, on the cluster's ports: each one started in turn and remembered, so that a failed
// or aborted start, and the cluster's own stop, stop everything front to back.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterProcess, type ClusterProcessOptions, type ClusterProcessSpec } from './cluster-process.ts';
import type { ClusterPorts } from './ports.ts';

/** The stopping order: proxy; gateways; workers and UI; Temporal worker, frontend; matching, history; PostgreSQL. */
function stopGroups(processes: ClusterProcess[]): ClusterProcess[][] {
  const rank = (name: string): number => {
    if (name === 'proxy') return 0;
    if (name.startsWith('gateway-')) return 1;
    if (name.startsWith('worker-') || name === 'ui') return 2;
    if (name === 'temporal-worker' || name === 'frontend') return 3;
    if (name === 'matching' || name === 'history') return 4;
    return 5; // postgres
  };
  const groups: ClusterProcess[][] = [[], [], [], [], [], []];
  for (const p of processes) groups[rank(p.name)]?.push(p);
  return groups;
}

export class Launch {
  private readonly started: ClusterProcess[] = [];

  readonly ports: ClusterPorts;
  private readonly signal?: AbortSignal;

  constructor(
    private readonly options: ClusterProcessOptions,
    cluster: { ports: ClusterPorts; signal?: AbortSignal },
  ) {
    this.ports = cluster.ports;
    this.signal = cluster.signal;
  }

  /** Starts one process and waits until it is ready; refused once the start is aborted. */
  async start(spec: ClusterProcessSpec): Promise<ClusterProcess> {
    if (this.signal?.aborted) throw new Error(`start aborted before ${spec.name}`);
    const proc = new ClusterProcess(spec, this.options);
    this.started.push(proc);
    await proc.start();
    return proc;
  }

  /** Every process started so far, in start order. */
  all(): ClusterProcess[] {
    return [...this.started];
  }

  /** Stops every process started, front to back; those of one rank at once. */
  async stopAll(): Promise<void> {
    for (const group of stopGroups(this.started)) await Promise.all(group.map((p) => p.stop()));
  }

  /** `<dataDir>/pids.json`: every process's current pid, to find them by hand if need be. */
  writePids(dataDir: string): void {
    const pids = Object.fromEntries(this.started.map((p) => [p.name, p.running ? p.pid : null]));
    writeFileSync(join(dataDir, 'pids.json'), `${JSON.stringify(pids, null, 2)}\n`);
  }
}
