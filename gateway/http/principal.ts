// Who is calling: the principal whose bearer token the request carried (auth.ts), or, when no
// tokens are configured (loopback only), the same local principal for everyone. The principal rides
// on the request as the SDK's authInfo so each per-request server is bound to it.
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Caller } from '../temporal/backend.ts';
import { authenticatedPrincipal } from './auth.ts';

export const ANONYMOUS = 'anonymous';

export function authInfoFor(principal: string): AuthInfo {
  return { token: '', clientId: principal, scopes: [] };
}

/** The principal of an incoming HTTP request (the local one when authentication is off). */
export function principalOf(request: IncomingMessage): string {
  return authenticatedPrincipal(request) ?? ANONYMOUS;
}

export function callerFrom(authInfo: AuthInfo | undefined): Caller {
  return { principal: authInfo?.clientId || ANONYMOUS };
}
