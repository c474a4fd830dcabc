// Who is calling. Until bearer tokens are configured every caller is the same local principal; the
// principal rides on the request as the SDK's authInfo so each per-request server is bound to it.
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Caller } from './mining-backend.ts';

export const ANONYMOUS = 'anonymous';

export function authInfoFor(principal: string): AuthInfo {
  return { token: '', clientId: principal, scopes: [] };
}

/** The principal of an incoming HTTP request (no authentication yet: always the local one). */
export function principalOf(_request: IncomingMessage): string {
  return ANONYMOUS;
}

export function callerFrom(authInfo: AuthInfo | undefined): Caller {
  return { principal: authInfo?.clientId || ANONYMOUS };
}
