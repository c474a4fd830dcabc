// An address of this machine that is not loopback, to send requests from as another machine would
// (the peer a server sees is that address, never 127.0.0.1): the machine's own interface address,
// or, on a machine with none, one on a veth pair made for the test (root only) and removed after. Traffic between two addresses of one machine never leaves it.
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';

/** An IPv4 address of this machine outside 127.0.0.0/8, and how to give it back. */
export interface MachineAddress {
  address: string;
  /** Where it came from, for the test's log. */
  source: string;
  release(): void;
}

/** The first IPv4 address of one of this machine's own non-loopback interfaces. */
function interfaceAddress(): MachineAddress | undefined {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return { address: found.address, source: `interface ${name}`, release: () => {} };
  }
  return undefined;
}

/**
 * An address in 198.18.0.0/15 (the benchmark range, never routed) on one end of a veth pair of its
 * own (a kernel without the dummy device still has veth), named and numbered after this process so
 * two test runs do not meet.
 */
function vethAddress(): MachineAddress {
  const name = `mcpt${process.pid % 100_000}`;
  const address = `198.18.${(process.pid >> 8) & 0xff}.${(process.pid & 0xff) | 1}`;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  ip('link', 'add', `${name}a`, 'type', 'veth', 'peer', 'name', `${name}b`);
  try {
    ip('addr', 'add', `${address}/32`, 'dev', `${name}a`);
    ip('link', 'set', `${name}a`, 'up');
    ip('link', 'set', `${name}b`, 'up');
  } catch (err) {
    ip('link', 'del', `${name}a`);
    throw err;
  }
  // Deleting one end of the pair deletes both.
  return { address, source: `veth ${name}a`, release: () => void ip('link', 'del', `${name}a`) };
}

/**
 * A non-loopback address of this machine, or why there is none: the machine's own, else a veth
 * pair's (which needs root).
 */
export function nonLoopbackAddress(): MachineAddress | { skip: string } {
  const own = interfaceAddress();
  if (own) return own;
  if (process.getuid?.() !== 0)
    return {
      skip: 'this machine has no non-loopback address, and making one (a veth pair) needs root',
    };
  return vethAddress();
}

/** What a request answered: its status, headers and JSON body. */
export interface PeerAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/**
 * POSTs `body` to `url` on a connection whose local end is `from` (the peer the server sees), with
 * `headers` as given: a `host` there replaces the one the URL would make.
 */
export function postFrom(
  from: string,
  url: URL,
  headers: Record<string, string>,
  body: unknown,
): Promise<PeerAnswer> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: { ...headers, 'content-length': String(payload.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text ? JSON.parse(text) : {},
          });
        });
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(payload);
  });
}
