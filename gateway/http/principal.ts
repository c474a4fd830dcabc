// Who is calling: the principal whose static bearer token the request carried, or the principal
// claim (`sub`) of its OAuth access token (auth.ts), or, when no authentication is configured
// (loopback only), the same local principal for everyone. The principal rides on the request as the
// SDK's authInfo so each per-request server is bound to it. Tasks are keyed by the principal alone,
// so a refreshed token with the same subject reaches the same tasks.
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
