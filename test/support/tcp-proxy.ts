// A TCP proxy in front of a server, for faults a real network has: `stall()` stops passing the
// server's bytes back (requests still go through and are acted on; answers never come), `resume()`
// lets them flow again.
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** host:port to connect to instead of the server's. */
  address: string;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ];
  const upstreams = new Map<Socket, Socket>();
  const sockets = new Set<Socket>();
  let stalled = false;
  const server = createServer((client) => {
    const upstream = connect(port, host);
    upstreams.set(upstream, client);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    if (!stalled) upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      upstreams.delete(upstream);
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    address: `127.0.0.1:${address.port}`,
    stall() {
      stalled = true;
      for (const [upstream, client] of upstreams) {
        upstream.unpipe(client);
        upstream.pause();
      }
    },
    resume() {
      stalled = false;
      for (const [upstream, client] of upstreams) upstream.pipe(client);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
