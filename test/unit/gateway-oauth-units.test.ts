// The OAuth pieces that need no server: the settings and their refusals, the bind check, the
// catalog's `scopes`, where discovery looks and what it accepts, the scopes a token grants, the
// per-tool scope check and the exact challenges.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { discoveryUrls } from '../../gateway/http/authorization-server.ts';
import { readMcpBody } from '../../gateway/http/body.ts';
import { JwtAccessTokenVerifier, tokenScopes } from '../../gateway/http/jwt-verifier.ts';
import { OAuthResourceServer } from '../../gateway/http/oauth.ts';
import { type OAuthSettings, oauthSettingsFromEnv } from '../../gateway/http/oauth-settings.ts';
import { Catalog, catalogTool } from '../../gateway/mcp/catalog.ts';
import { loadCatalogFile } from '../../gateway/mcp/catalog-file.ts';
import { inputRequestId } from '../../gateway/mcp/legacy-task-input.ts';
import { readMessage } from '../../gateway/mcp/methods.ts';
import { Rights } from '../../gateway/mcp/rights.ts';
import { loadSettings } from '../../gateway/settings/index.ts';
import { runTaskId } from '../../gateway/temporal/task-ids.ts';

const dir = mkdtempSync(join(tmpdir(), 'oauth-units-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ISSUER = 'https://login.example.com/tenant-1';
const AUDIENCE = 'https://mcp.example.com/mcp';
const base = { MCP_OAUTH_ISSUER: ISSUER, MCP_OAUTH_AUDIENCE: AUDIENCE };

const settings = (extra: Partial<OAuthSettings> = {}): OAuthSettings => ({
  ...(oauthSettingsFromEnv(base) as OAuthSettings),
  ...extra,
});

describe('settings', () => {
  test('unset: no OAuth; set: the defaults filled in', async () => {
    assert.equal(oauthSettingsFromEnv({}), undefined);
    assert.deepEqual(
      oauthSettingsFromEnv({ ...base, MCP_OAUTH_REQUIRED_SCOPES: 'mcp:tools, mcp:read mcp:tools' }),
      {
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredScopes: ['mcp:tools', 'mcp:read'],
        // The defaults configuration.md states.
        principalClaim: 'sub',
        clockSkewMs: 30_000,
        httpTimeoutMs: 5000,
        jwksCooldownMs: 30_000,
        principalAliases: new Map(),
      },
    );
    const aliased = oauthSettingsFromEnv({ ...base, MCP_OAUTH_PRINCIPAL_ALIASES: 'a1b2=ci-bot, x@corp=ops' });
    assert.deepEqual(
      [...(aliased?.principalAliases ?? [])],
      [
        ['a1b2', 'ci-bot'],
        ['x@corp', 'ops'],
      ],
    );
  });

  test('half a configuration, an insecure or malformed URL, a bad scope: refused, naming the variable', async () => {
    for (const [env, problem] of [
      [{ MCP_OAUTH_ISSUER: ISSUER }, /MCP_OAUTH_AUDIENCE .* must be set/],
      [{ MCP_OAUTH_AUDIENCE: AUDIENCE }, /MCP_OAUTH_ISSUER must be set/],
      [{ MCP_OAUTH_REQUIRED_SCOPES: 'mcp:tools' }, /MCP_OAUTH_REQUIRED_SCOPES is set but MCP_OAUTH_ISSUER/],
      [{ ...base, MCP_OAUTH_ISSUER: 'http://login.example.com' }, /MCP_OAUTH_ISSUER must be an https URL/],
      [{ ...base, MCP_OAUTH_AUDIENCE: 'mcp-gateway' }, /MCP_OAUTH_AUDIENCE must be an absolute URL/],
      [{ ...base, MCP_OAUTH_AUDIENCE: `${AUDIENCE}#x` }, /no query or fragment/],
      [{ ...base, MCP_OAUTH_REQUIRED_SCOPES: 'mcp:"tools"' }, /not a valid OAuth scope/],
      [{ ...base, MCP_OAUTH_PRINCIPAL_CLAIM: 'a claim' }, /MCP_OAUTH_PRINCIPAL_CLAIM/],
      [
        { ...base, MCP_OAUTH_CLOCK_SKEW_MS: '600000' },
        /MCP_OAUTH_CLOCK_SKEW_MS must be an integer from 0 to 300000/,
      ],
    ] as const) {
      assert.throws(() => oauthSettingsFromEnv(env), problem, JSON.stringify(env));
    }
    // Plain http is fine on loopback (local identity providers, tests).
    assert.ok(
      oauthSettingsFromEnv({ MCP_OAUTH_ISSUER: 'http://127.0.0.1:8080', MCP_OAUTH_AUDIENCE: AUDIENCE }),
    );
  });

  test('OAuth alone is authentication enough for a non-loopback bind', async () => {
    await assert.rejects(loadSettings({ MCP_HOST: '0.0.0.0' }), /MCP_OAUTH_ISSUER and MCP_OAUTH_AUDIENCE/);
    assert.equal((await loadSettings({ MCP_HOST: '0.0.0.0', ...base })).oauth?.issuer, ISSUER);
  });
});

describe('catalog scopes', () => {
  const write = (tools: unknown[]) => {
    const path = join(dir, `c-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify({ tools }));
    return path;
  };
  const entry = (extra: Record<string, unknown> = {}) => ({
    name: 'start_report',
    description: 'Builds a report.',
    workflow: 'buildReport',
    inputSchema: { type: 'object' },
    ...extra,
  });
  const defaults = { taskQueue: 'q', waitBudgetMs: 1_000 };

  test('an entry may name the scopes it needs; none by default', async () => {
    const [scoped, open] = await loadCatalogFile(
      write([entry({ scopes: ['reports:write'] }), entry({ name: 'other' })]),
      defaults,
    );
    assert.deepEqual(scoped?.scopes, ['reports:write']);
    assert.equal(open?.scopes, undefined);
  });

  test('a bad scope list stops the start, naming the entry and the field', async () => {
    for (const scopes of [[], ['two words'], 'reports:write', ['a', 'a']]) {
      await assert.rejects(
        loadCatalogFile(write([entry({ scopes })]), defaults),
        /tools\[0\] \(start_report\): scopes/,
        JSON.stringify(scopes),
      );
    }
  });

  test('each scoped tool, its companions and tasks of its id prefix need the gateway scopes and its own', async () => {
    const defaults2 = { taskQueue: 'q', waitBudgetMs: 1_000 };
    const scoped = catalogTool(
      {
        ...entry({ scopes: ['reports:write'] }),
        inputSignal: 'input',
        companions: { list: 'list_reports' },
      } as never,
      defaults2,
    );
    const open = catalogTool(entry({ name: 'lookup' }) as never, defaults2);
    const catalog = new Catalog([scoped, open]);
    const rights = new Rights(catalog, ['mcp:tools']);
    // The route reads each message once (the method table); the check takes it as it was read.
    const scopes = {
      supported: rights.supported(),
      missing: async (body: unknown, who: { principal: string; scopes?: string[] }) => {
        const [message] = readMcpBody(body, (envelope, raw) => readMessage(catalog, envelope, raw)).messages;
        return rights.missingScopes(message?.reading ?? { tools: [], tasks: [], polls: [] }, who.scopes);
      },
    };
    assert.deepEqual(scopes.supported, ['mcp:tools', 'reports:write']);
    const reader = { principal: 'alice', scopes: ['mcp:tools'] };
    const writer = { principal: 'alice', scopes: ['mcp:tools', 'reports:write'] };
    const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });
    for (const name of [
      'start_report',
      'get_report_result',
      'cancel_report',
      'respond_to_report',
      'list_reports',
    ]) {
      assert.deepEqual(await scopes.missing(call(name), reader), ['mcp:tools', 'reports:write'], name);
      assert.equal(await scopes.missing(call(name), writer), undefined, name);
    }
    assert.equal(await scopes.missing(call('lookup'), reader), undefined);
    // A caller given scopes needs the required ones for any request, a tool's or none.
    assert.deepEqual(await scopes.missing(call('lookup'), { principal: 'ci', scopes: ['reports:write'] }), [
      'mcp:tools',
    ]);
    const task = (taskId: string) => ({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId } });
    assert.deepEqual(await scopes.missing(task(`start_report-${'A'.repeat(32)}`), reader), [
      'mcp:tools',
      'reports:write',
    ]);
    assert.equal(await scopes.missing(task(`lookup-${'A'.repeat(32)}`), reader), undefined);
    // An artifact is part of its run's result: reading it needs what tasks/get of the run needs.
    const read = (uri: string) => ({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } });
    const artifact = 'abcdefghijklmnop0123';
    assert.deepEqual(
      await scopes.missing(read(`artifact://start_report-${'A'.repeat(32)}/${artifact}`), reader),
      ['mcp:tools', 'reports:write'],
    );
    assert.equal(
      await scopes.missing(read(`artifact://start_report-${'A'.repeat(32)}/${artifact}`), writer),
      undefined,
    );
    assert.equal(
      await scopes.missing(read(`artifact://lookup-${'A'.repeat(32)}/${artifact}`), reader),
      undefined,
    );
    // Both revisions' task methods, a push watch, an input answer: the scopes of the task's tool.
    const id = runTaskId(Buffer.from('s'.repeat(40)), `start_report-${'A'.repeat(32)}`, {
      slot: 1,
      runId: '0194f1c2-7a3b-7c4d-8e5f-a0b1c2d3e4f5',
    });
    const both = ['mcp:tools', 'reports:write'];
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update']) {
      const message = { jsonrpc: '2.0', id: 1, method, params: { taskId: id } };
      assert.deepEqual(await scopes.missing(message, reader), both, method);
      assert.equal(await scopes.missing(message, writer), undefined, method);
    }
    const listen = {
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: { notifications: { taskIds: [`lookup-${'A'.repeat(32)}`, id] } },
    };
    assert.deepEqual(await scopes.missing(listen, reader), both);
    const answer = { jsonrpc: '2.0', id: inputRequestId(id, 'approve'), result: { action: 'accept' } };
    assert.deepEqual(await scopes.missing(answer, reader), both, 'an input answer');
    assert.equal(await scopes.missing(answer, writer), undefined);
    // A static token (no scopes) may use every tool.
    assert.equal(await scopes.missing(call('start_report'), { principal: 'ops' }), undefined);
  });
});

describe('discovery', () => {
  test('RFC 8414 first, then OpenID Connect; both forms for an issuer with a path', async () => {
    assert.deepEqual(discoveryUrls('https://as.example.com').map(String), [
      'https://as.example.com/.well-known/oauth-authorization-server',
      'https://as.example.com/.well-known/openid-configuration',
    ]);
    assert.deepEqual(discoveryUrls(`${ISSUER}/`).map(String), [
      'https://login.example.com/.well-known/oauth-authorization-server/tenant-1',
      'https://login.example.com/.well-known/openid-configuration/tenant-1',
      'https://login.example.com/tenant-1/.well-known/openid-configuration',
    ]);
  });

  /** A fetch that serves `documents` by URL and 404 for anything else, recording what it was asked. */
  function fakeFetch(documents: Record<string, unknown>) {
    const asked: string[] = [];
    const fetchImpl = (async (input: string | URL) => {
      asked.push(String(input));
      const document = documents[String(input)];
      return document === undefined ? new Response('no', { status: 404 }) : Response.json(document);
    }) as typeof fetch;
    return { asked, fetchImpl };
  }

  test('falls through a 404 to the next document; an issuer that differs is a clear error', async () => {
    const oidc = 'https://login.example.com/tenant-1/.well-known/openid-configuration';
    const jwks = 'https://login.example.com/tenant-1/keys';
    const good = fakeFetch({ [oidc]: { issuer: ISSUER, jwks_uri: jwks }, [jwks]: { keys: [] } });
    await new JwtAccessTokenVerifier(settings(), good.fetchImpl).warmUp();
    assert.deepEqual(good.asked, [...discoveryUrls(ISSUER).map(String), jwks]);

    const other = fakeFetch({ [oidc]: { issuer: `${ISSUER}/`, jwks_uri: jwks } });
    await assert.rejects(
      new JwtAccessTokenVerifier(settings(), other.fetchImpl).warmUp(),
      /names the issuer "https:\/\/login\.example\.com\/tenant-1\/"; MCP_OAUTH_ISSUER must be exactly that/,
    );
    const none = fakeFetch({});
    await assert.rejects(
      new JwtAccessTokenVerifier(settings(), none.fetchImpl).warmUp(),
      /no discovery document for https:\/\/login\.example\.com\/tenant-1 \(tried .*HTTP 404/,
    );
  });
});

describe('verified tokens', () => {
  test('remembered, but never past their expiry', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwks = 'https://login.example.com/keys';
    const { fetchImpl } = (() => {
      const documents: Record<string, unknown> = {
        [discoveryUrls(ISSUER)[0]?.href as string]: { issuer: ISSUER, jwks_uri: jwks },
      };
      return {
        fetchImpl: (async (input: string | URL) => {
          if (String(input) === jwks) {
            return Response.json({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] });
          }
          const document = documents[String(input)];
          return document ? Response.json(document) : new Response('no', { status: 404 });
        }) as typeof fetch,
      };
    })();
    const verifier = new JwtAccessTokenVerifier(settings({ clockSkewMs: 0 }), fetchImpl);
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await new SignJWT({ sub: 'alice', scope: 'mcp:tools' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(exp)
      .sign(privateKey);
    const first = await verifier.verifyAccessToken(token);
    assert.equal(first.extra?.principal, `${ISSUER}#alice`);
    assert.deepEqual(await verifier.verifyAccessToken(token), first);
    await delay(exp * 1000 - Date.now() + 50);
    await assert.rejects(verifier.verifyAccessToken(token), /the token has expired/);
  });
});

describe('tokens and challenges', () => {
  test('scopes from `scope` (space-separated) or `scp` (a list)', async () => {
    assert.deepEqual(tokenScopes({ scope: 'a b  c' }), ['a', 'b', 'c']);
    assert.deepEqual(tokenScopes({ scp: ['a', 'b', 7] }), ['a', 'b']);
    assert.deepEqual(tokenScopes({}), []);
  });

  test('the challenges: realm, metadata URL, scope; quotes in a description escaped', async () => {
    const plain = new OAuthResourceServer(settings());
    assert.equal(plain.metadataUrl, 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    assert.equal(
      plain.missingToken().headers['www-authenticate'],
      'Bearer realm="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const invalid = plain.invalidToken('the token\'s "exp" claim is not acceptable');
    assert.equal(invalid.status, 401);
    assert.equal(
      invalid.headers['www-authenticate'],
      'Bearer realm="mcp", error="invalid_token", error_description="the token\'s \\"exp\\" claim is not acceptable", ' +
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const scoped = new OAuthResourceServer(settings({ requiredScopes: ['mcp:tools'] }));
    assert.match(scoped.missingToken().headers['www-authenticate'] ?? '', /, scope="mcp:tools"$/);
    const forbidden = scoped.insufficientScope(['mcp:tools', 'reports:write'], 'needs more', 4);
    assert.equal(forbidden.status, 403);
    assert.match(
      forbidden.headers['www-authenticate'] ?? '',
      /error="insufficient_scope".*scope="mcp:tools reports:write"/,
    );
    assert.equal(forbidden.body.id, 4);
    assert.equal(forbidden.body.error.code, -32003);
  });
});
