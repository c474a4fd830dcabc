// Part 8: what an OAuth access token costs over a static token. One gateway process with both
// configured (the token's subject is an alias of the static principal, so every side polls the same
// task as the same principal); `tasks/get` with the static token (constant-time compare), with one
// access token used throughout (as a client does until it expires: verified once, then
// remembered), and with a token never seen before on every call (the whole check: signature with
// the cached key, claims, scopes), one call at a time, the sides in rotating order on every round.
// The authorization server is the test one (oidc-provider).

import { freePort } from '../launcher/free-port.ts';
import type { TestProcess } from '../test/support/child-process.ts';
import { rpcResult, TASKS_CLIENT } from '../test/support/mcp-http.ts';
import { signingKey, startAuthorizationServer } from '../test/support/oauth-server.ts';
import { PARKED_ARGS } from './overhead.ts';
import { startGatewayProcess } from './stack.ts';
import { type Distribution, distribution, timed } from './stats.ts';

export interface OAuthSideResult {
  staticGet: Distribution;
  /** One token for every call. */
  oauthGet: Distribution;
  /** A token the gateway has not seen before on every call. */
  freshTokenGet: Distribution;
  /** What the JWT's header names (alg, typ) and what the authorization server is. */
  token: string;
}

const SUBJECT = 'bench-agent';
const STATIC_TOKEN = 'bench-static-token-4c1e8a7b2d9f3e60';
const CLIENT = { id: SUBJECT, secret: 'bench-agent-secret-8d2b7e1f', scope: 'mcp:tools' };

async function getTask(url: URL, taskId: string, token: string): Promise<void> {
  const task = await rpcResult(url, 'tasks/get', { taskId }, TASKS_CLIENT, {
    authorization: `Bearer ${token}`,
  });
  if (task.status !== 'working') throw new Error(`expected a working task, got ${JSON.stringify(task)}`);
}

/** Runs the sides of one round in an order that rotates with the round number. */
async function rotated(round: number, sides: (() => Promise<unknown>)[]): Promise<void> {
  for (let k = 0; k < sides.length; k++)
    await (sides[(round + k) % sides.length] as () => Promise<unknown>)();
}

export async function measureOAuthSideBySide(options: {
  temporalAddress: string;
  /** A queue served by a workflows-only worker: runs started there stay Running. */
  taskQueue: string;
  /** Node.js arguments that run the gateway (compiledGateway()). */
  nodeArgs: string[];
  calls: number;
  warmup: number;
}): Promise<OAuthSideResult> {
  const { calls, warmup } = options;
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const authServer = await startAuthorizationServer({
    keys: [await signingKey('bench-key')],
    clients: [CLIENT],
    resources: [resource],
    scope: 'mcp:tools',
    ttlSeconds: 3600,
  });
  let gateway: TestProcess | undefined;
  try {
    const started = await startGatewayProcess({
      temporalAddress: options.temporalAddress,
      taskQueue: options.taskQueue,
      waitBudgetMs: 0,
      nodeArgs: options.nodeArgs,
      port,
      env: {
        MCP_AUTH_TOKENS: `${SUBJECT}:${STATIC_TOKEN}`,
        MCP_OAUTH_ISSUER: authServer.issuer,
        MCP_OAUTH_AUDIENCE: resource,
        MCP_OAUTH_REQUIRED_SCOPES: 'mcp:tools',
        MCP_OAUTH_PRINCIPAL_ALIASES: `${SUBJECT}=${SUBJECT}`,
      },
    });
    gateway = started;
    const jwt = await authServer.token(CLIENT, resource, 'mcp:tools');
    const fresh: string[] = [];
    for (let i = 0; i < warmup + calls; i++)
      fresh.push(await authServer.token(CLIENT, resource, 'mcp:tools'));
    const created = await rpcResult(
      started.url,
      'tools/call',
      { name: 'start_mining', arguments: PARKED_ARGS },
      TASKS_CLIENT,
      { authorization: `Bearer ${STATIC_TOKEN}` },
    );
    const taskId = String(created.taskId);
    const samples = { static: [] as number[], oauth: [] as number[], fresh: [] as number[] };
    for (let round = 0; round < warmup + calls; round++) {
      const keep = round >= warmup;
      await rotated(round, [
        () => timed(keep ? samples.static : [], () => getTask(started.url, taskId, STATIC_TOKEN)),
        () => timed(keep ? samples.oauth : [], () => getTask(started.url, taskId, jwt)),
        () => timed(keep ? samples.fresh : [], () => getTask(started.url, taskId, fresh[round] as string)),
      ]);
    }
    const header = JSON.parse(Buffer.from(jwt.split('.')[0] as string, 'base64url').toString()) as {
      alg: string;
      typ?: string;
    };
    return {
      staticGet: distribution(samples.static),
      oauthGet: distribution(samples.oauth),
      freshTokenGet: distribution(samples.fresh),
      token: `${header.alg} JWT (typ ${header.typ ?? 'none'}) from oidc-provider, client credentials`,
    };
  } finally {
    await gateway?.stop();
    await authServer.stop();
  }
}
