// What counts as loopback: one predicate for the decisions that hang on it (running without
// authentication, the DNS-rebinding Host/Origin checks that then protect the server), and the rule
// for a gateway nobody signs in to: it serves callers on its own machine only, by the socket's peer.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { remotePeerRefused } from '../mcp/errors.ts';

/** 127.0.0.0/8, written out. */
const LOOPBACK_IPV4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || LOOPBACK_IPV4.test(bare);
}

/** The Host / Origin hostnames a loopback-bound server accepts: the usual three and its own. */
export function loopbackHostnames(host: string): string[] {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  return [...names];
}

/**
 * Whether a socket's peer address is on this machine's loopback: 127.0.0.0/8 or ::1, IPv4 ones also
 * as a dual-stack socket names them (::ffff:127.0.0.1). No address (a Unix socket, a closed one) is not.
 */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  const ip = address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return ip === '::1' || LOOPBACK_IPV4.test(ip);
}

/**
 * onRequest hook of a gateway nobody signs in to (no `authenticate`, no tokens, no OAuth): a request
 * whose socket peer is not loopback is refused with 403 naming what to configure. The peer, never a
 * header: `Host` and `X-Forwarded-For` are whatever the caller wrote.
 */
export async function loopbackPeersOnly(request: FastifyRequest, reply: FastifyReply) {
  const peer = request.raw.socket.remoteAddress;
  if (!isLoopbackPeer(peer))
    return reply
      .code(403)
      .header('content-type', 'application/json')
      .send(remotePeerRefused(peer ?? 'a socket without an address'));
}
