// The round-robin proxy in front of the gateways: HAProxy from the Debian package
// (`apt-get install haproxy`), in the foreground, its config written at every start.
import { existsSync, writeFileSync } from 'node:fs';
import type { ClusterProcessSpec } from './cluster-process.ts';

export interface ProxyOptions {
  configFile: string;
  port: number;
  gatewayPorts: number[];
}

export function findHaproxy(env: NodeJS.ProcessEnv = process.env): string {
  const path =
    env.HAPROXY_PATH ?? ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy'].find(existsSync);
  if (!path || !existsSync(path))
    throw new Error('HAProxy not found: apt-get install haproxy (Debian/Ubuntu), or set HAPROXY_PATH');
  return path;
}

/**
 * Round robin per request over the gateways. A gateway is taken out of the rotation after two
 * failed `/healthz` checks a second apart and back after one good one. Not `/readyz`: it fails on
 * every gateway at once when Temporal is down, and with no gateway left the proxy answers its own
 * HTML 503, where a gateway would have answered a JSON-RPC error that says to try again shortly. A request whose connection to
 * a gateway fails (the gateway is down, not yet marked so) is sent again to the other one: nothing
 * reached the dead gateway, so that retry is always safe. A request a gateway dies in the middle of
 * is not retried by the proxy (a tools/call is not idempotent unless the client gave a key): the
 * client sees an error (502) and retries itself.
 */
export function writeProxyConfig({ configFile, port, gatewayPorts }: ProxyOptions): void {
  writeFileSync(
    configFile,
    `# Written by launcher/cluster/proxy.ts at every start of the cluster.
global
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout http-request 30s
  # Streams of subscriptions/listen stay open: let them.
  timeout tunnel 1h
  retries 2
  option redispatch 1
  retry-on conn-failure

frontend mcp
  bind 127.0.0.1:${port}
  default_backend gateways

backend gateways
  balance roundrobin
  # The check names a loopback Host: the gateways refuse others (DNS-rebinding protection).
  # Liveness, not readiness: see writeProxyConfig.
  option httpchk
  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host 127.0.0.1
  http-check expect status 200
  default-server inter 1s fall 2 rise 1
${gatewayPorts.map((p, i) => `  server gateway-${i + 1} 127.0.0.1:${p} check`).join('\n')}
`,
  );
}

export function proxySpec(haproxy: string, configFile: string, port: number): ClusterProcessSpec {
  return {
    name: 'proxy',
    command: haproxy,
    // -db: foreground, no daemon; -W would fork a master; we want the one process.
    args: ['-db', '-f', configFile],
    ready: async () => {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
      return response.ok;
    },
    readyTimeoutMs: 30_000,
    stopGraceMs: 5_000,
  };
}
