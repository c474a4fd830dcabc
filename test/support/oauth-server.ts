// The test authorization server (test/fixtures/oauth/authorization-server.ts) as a child process on
// a free loopback port, with what tests do to it: ask its token endpoint for a client-credentials
// token, rotate its keys, take its key set endpoint down, count requests; plus signing keys made
// here, so a test can hand-make the tokens a real authorization server would never issue.
import { type CryptoKey, exportJWK, generateKeyPair, type JWK } from 'jose';
import { freePort } from '../../launcher/free-port.ts';
import type { AsClient, AsConfig } from '../fixtures/oauth/authorization-server.ts';
import { spawnTestProcess } from './child-process.ts';

const SCRIPT = 'test/fixtures/oauth/authorization-server.ts';

export type { AsClient, AsConfig };

export interface SigningKey {
  kid: string;
  /** The private JWK (with kid, alg and use), as the authorization server is configured with it. */
  jwk: JWK;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** A fresh ES256 key pair named `kid`. */
export async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const meta = { kid, alg: 'ES256', use: 'sig' };
  return {
    kid,
    jwk: { ...(await exportJWK(privateKey)), ...meta },
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
  };
}

export interface TestAuthorizationServer {
  /** http://127.0.0.1:<port>: the issuer identifier. */
  issuer: string;
  /** A client-credentials access token from the token endpoint (HTTP Basic client auth). */
  token(client: AsClient, resource: string, scope?: string): Promise<string>;
  /** The raw token endpoint answer, for refusals. */
  tokenResponse(client: AsClient, resource: string, scope?: string): Promise<Response>;
  /** Sign with `keys` from now on (the first signs); the key set publishes them all. */
  setKeys(keys: SigningKey[]): Promise<void>;
  setJwksMode(mode: 'ok' | 'hang' | 'error'): Promise<void>;
  /** Requests per path so far. */
  requests(): Promise<Record<string, number>>;
  output(): string;
  stop(): Promise<void>;
}

export async function startAuthorizationServer(
  config: Omit<AsConfig, 'keys'> & { keys: SigningKey[] },
  readyTimeoutMs = 20_000,
): Promise<TestAuthorizationServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const server = spawnTestProcess({
    name: 'authorization server',
    command: process.execPath,
    args: ['--import', 'tsx', SCRIPT],
    env: {
      AS_PORT: String(port),
      AS_CONFIG: JSON.stringify({ ...config, keys: config.keys.map((key) => key.jwk) }),
    },
    readyText: 'authorization server: listening',
    readyTimeoutMs,
  });
  await server.ready;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(new URL(path, issuer), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  };
  const tokenResponse = (client: AsClient, resource: string, scope?: string) =>
    fetch(new URL('/token', issuer), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        resource,
        ...(scope ? { scope } : {}),
      }),
    });
  return {
    issuer,
    tokenResponse,
    async token(client, resource, scope) {
      const response = await tokenResponse(client, resource, scope);
      const body = (await response.json()) as { access_token?: string; error?: string };
      if (!body.access_token)
        throw new Error(`token endpoint: HTTP ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    setKeys: (keys) => post('/test/keys', { keys: keys.map((key) => key.jwk) }),
    setJwksMode: (mode) => post('/test/jwks', { mode }),
    async requests() {
      return (await (await fetch(new URL('/test/requests', issuer))).json()) as Record<string, number>;
    },
    output: server.output,
    async stop() {
      await server.stop();
    },
  };
}
