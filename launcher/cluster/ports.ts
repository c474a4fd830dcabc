// The cluster's ports: fixed ones for `npm run cluster`, free ones for tests, and the check that
// none is taken before anything starts.
import { freePort } from '../free-port.ts';
import { portOpen, TEMPORAL_SERVICES, type TemporalPorts, type TemporalService } from './temporal-server.ts';

export interface ClusterPorts {
  postgres: number;
  temporal: TemporalPorts;
  ui: number;
  proxy: number;
  gateways: number[];
}

/** Fixed ports for `npm run cluster`, all offsets from `base` (default 17000: the MCP endpoint on 17300). */
export function defaultClusterPorts(base = 17_000, gateways = 2): ClusterPorts {
  return {
    postgres: base + 432,
    temporal: {
      grpc: { frontend: base + 233, history: base + 234, matching: base + 235, worker: base + 239 },
      membership: { frontend: base + 933, history: base + 934, matching: base + 935, worker: base + 939 },
      frontendHttp: base + 243,
    },
    ui: base + 1_233,
    proxy: base + 300,
    gateways: Array.from({ length: gateways }, (_, i) => base + 301 + i),
  };
}

/** Every port free right now (tests). */
export async function freeClusterPorts(gateways = 2): Promise<ClusterPorts> {
  const taken = new Set<number>();
  const next = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const perService = async () =>
    Object.fromEntries(await Promise.all(TEMPORAL_SERVICES.map(async (s) => [s, await next()]))) as Record<
      TemporalService,
      number
    >;
  return {
    postgres: await next(),
    temporal: { grpc: await perService(), membership: await perService(), frontendHttp: await next() },
    ui: await next(),
    proxy: await next(),
    gateways: await Promise.all(Array.from({ length: gateways }, next)),
  };
}

/** Names the first port of the list that something already listens on. */
export async function assertPortsFree(ports: ClusterPorts): Promise<void> {
  const named: Array<[string, number]> = [
    ['postgres', ports.postgres],
    ...TEMPORAL_SERVICES.map((s): [string, number] => [`${s} gRPC`, ports.temporal.grpc[s]]),
    ...TEMPORAL_SERVICES.map((s): [string, number] => [`${s} membership`, ports.temporal.membership[s]]),
    ['frontend HTTP', ports.temporal.frontendHttp],
    ['Web UI', ports.ui],
    ['proxy', ports.proxy],
    ...ports.gateways.map((p, i): [string, number] => [`gateway-${i + 1}`, p]),
  ];
  for (const [name, port] of named) {
    if (await portOpen(port))
      throw new Error(
        `port ${port} (${name}) is already in use: is a cluster already running? Stop it, or pick other ports with CLUSTER_PORT_BASE`,
      );
  }
}
