// A TCP port free on loopback right now, chosen below the kernel's ephemeral port range. Between
// this check and its use, a process that binds port 0 (the Temporal dev server does, for its own
// internal services) or opens a connection takes its port from that range: a port outside it
// cannot be taken from under us that way.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 15_000;
const ATTEMPTS = 100;

/** The first port of the ephemeral range (Linux), or the common default. */
function ephemeralStart(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > LOWEST + 1_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/** Listens on `port` (0: any) on loopback and closes again; the port it got, or undefined if taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err),
    );
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

export async function freePort(): Promise<number> {
  const span = ephemeralStart() - LOWEST;
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = await probe(LOWEST + Math.floor(Math.random() * span));
    if (port !== undefined) return port;
  }
  const any = await probe(0);
  if (any === undefined) throw new Error('no free port');
  return any;
}
