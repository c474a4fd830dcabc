// Asking an OAuth authorization server: where its discovery document may be, why a request to it
// failed (in a few words), and the error that says it could not be asked (not the token's fault).

/** The authorization server's discovery document or keys could not be had: not the token's fault. */
export class AuthorizationServerUnavailable extends Error {
  override name = 'AuthorizationServerUnavailable';
}

/**
 * Where the discovery document of `issuer` may be: RFC 8414's oauth-authorization-server, then
 * OpenID Connect's openid-configuration (both forms of it for an issuer with a path).
 */
export function discoveryUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const at = (wellKnown: string) => new URL(wellKnown, url.origin);
  if (path === '') {
    return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  }
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

export function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Why a request to the authorization server failed, in a few words. */
export function failureReason(err: unknown, timeoutMs: number): string {
  const error = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = (err as { code?: unknown })?.code;
  if (error?.name === 'TimeoutError' || error?.name === 'AbortError' || code === 'ERR_JWKS_TIMEOUT')
    return `no answer within ${timeoutMs} ms`;
  return error?.cause?.code ?? error?.cause?.message ?? error?.message ?? String(err);
}
