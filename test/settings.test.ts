// The gateway's settings, area by area (gateway/settings/): what each is when unset, as
// docs/configuration.md states it, and that a bad value is refused with one line naming the variable
// and its rule. No Temporal needed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createOnce } from '../common/create-once.ts';
import { booleanSetting, integerSetting, nameValueList, parseSettings } from '../common/settings.ts';
import { loadCatalog } from '../gateway/mcp/catalog-file.ts';
import { artifactsFromEnv } from '../gateway/settings/artifacts.ts';
import { authSchema } from '../gateway/settings/auth.ts';
import { budgetsFromEnv } from '../gateway/settings/budgets.ts';
import { toolsFileFromEnv } from '../gateway/settings/catalog.ts';
import { codecSettingsFromEnv } from '../gateway/settings/codec.ts';
import { loadSettings } from '../gateway/settings/index.ts';
import { limitsFromEnv } from '../gateway/settings/limits.ts';
import { listenFromEnv } from '../gateway/settings/listen.ts';
import { pollingFromEnv } from '../gateway/settings/polling.ts';
import { traceFromEnv } from '../gateway/settings/tracing.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');
const ISSUER = 'https://login.example.com/tenant-1/';
const AUDIENCE = 'https://gateway.example.com/mcp';

/** Asserts that `read` throws a plain Error whose message is exactly one line matching `problem`. */
function refused(read: () => unknown, problem: RegExp): void {
  assert.throws(read, (err: unknown) => {
    assert.ok(err instanceof Error && err.constructor === Error, `a plain Error, got ${String(err)}`);
    assert.doesNotMatch(err.message, /\n/);
    assert.match(err.message, problem);
    return true;
  });
}

describe('the common readers', () => {
  test('an integer: blank is the default; out of range or not a whole number names the variable and its range', () => {
    assert.equal(integerSetting({ N: ' ' }, 'N', { fallback: 7, min: 0, max: 10 }), 7);
    assert.equal(integerSetting({ N: ' 10 ' }, 'N', { fallback: 7, min: 0, max: 10 }), 10);
    for (const bad of ['11', '-1', '2.5', 'ten'])
      refused(
        () => integerSetting({ N: bad }, 'N', { fallback: 7, min: 0, max: 10 }),
        new RegExp(`^N must be an integer from 0 to 10, got "${bad}"$`),
      );
  });

  test('a flag: true/1 or false/0 in any case, blank false; anything else named', () => {
    for (const [raw, value] of [
      ['TRUE', true],
      ['1', true],
      [' false ', false],
      ['0', false],
      ['', false],
    ] as const)
      assert.equal(booleanSetting({ F: raw }, 'F'), value, raw);
    assert.equal(booleanSetting({}, 'F'), false);
    refused(() => booleanSetting({ F: 'yes' }, 'F'), /^F must be "true" or "false", got "yes"$/);
  });

  test('a name=value list: split at the last "=", trimmed; a bad entry, a value refused or a name twice is named', () => {
    const list = {
      name: 'L',
      separator: ';',
      shape: 'name=digits',
      value: (v: string) => (/^\d+$/.test(v) ? Number(v) : undefined),
    };
    assert.deepEqual(
      [...nameValueList(' a = 1 ;; b=c=2 ', { ...list, value: (v) => v })],
      [
        ['a', '1'],
        ['b=c', '2'],
      ],
    );
    assert.deepEqual(nameValueList(undefined, list).size, 0);
    refused(() => nameValueList('a', list), /^L: "a" is not name=digits$/);
    refused(() => nameValueList('=1', list), /^L: "=1" is not name=digits$/);
    refused(() => nameValueList('a=x', list), /^L: "a=x" is not name=digits$/);
    refused(() => nameValueList('a=1;a=2', list), /^L: "a" is listed twice$/);
  });

  test('createOnce: the first call writes (folder too, owner-only), later ones keep what it wrote', () => {
    const dir = mkdtempSync(join(tmpdir(), 'create-once-'));
    try {
      const path = join(dir, 'sub', 'file');
      assert.equal(createOnce(path, 'first\n'), true);
      assert.equal(createOnce(path, 'second\n'), false);
      assert.equal(readFileSync(path, 'utf8'), 'first\n');
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.throws(() => createOnce(join(path, 'under-a-file'), 'x'), /ENOTDIR|EEXIST/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createOnce under a concurrent reader', () => {
  test('the file appears whole or not at all (a replica starting beside the writer never reads it part-written)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'create-once-race-'));
    try {
      const path = join(dir, 'file');
      const size = 64 * 1024 * 1024; // long enough to write that a reader would catch it half-way
      const writer = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '-e',
          `import('${new URL('../common/create-once.ts', import.meta.url).href}')` +
            `.then((m) => m.createOnce(${JSON.stringify(path)}, 'x'.repeat(${size})))`,
        ],
        { stdio: 'inherit' },
      );
      const exited = once(writer, 'exit');
      const sizes = new Set<number>();
      const deadline = Date.now() + 30_000;
      // A reader spinning until the file is there: every size it ever sees must be the whole.
      while (Date.now() < deadline) {
        try {
          sizes.add(statSync(path).size);
          if (sizes.has(size)) break;
        } catch {
          // not there yet
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      await exited;
      assert.deepEqual([...sizes], [size], 'sizes the reader saw');
      assert.deepEqual(readdirSync(dir), ['file'], 'no temporary file left behind');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('gateway settings by area', () => {
  test('listen: the defaults; each bound names its variable', () => {
    assert.deepEqual(listenFromEnv({}), {
      host: '127.0.0.1',
      port: 3000,
      bodyLimitBytes: 65_536,
      requestTimeoutMs: 30_000,
      writeTimeoutMs: 30_000,
      maxConnections: 10_000,
    });
    assert.equal(listenFromEnv({ MCP_HOST: ' 0.0.0.0 ' }).host, '0.0.0.0');
    refused(
      () => listenFromEnv({ MCP_PORT: '65536' }),
      /^MCP_PORT must be an integer from 0 to 65535, got "65536"$/,
    );
    refused(
      () => listenFromEnv({ MCP_MAX_BODY_BYTES: '100' }),
      /^MCP_MAX_BODY_BYTES must be an integer from 1024/,
    );
    refused(
      () => listenFromEnv({ MCP_MAX_CONNECTIONS: '0' }),
      /^MCP_MAX_CONNECTIONS must be an integer from 1/,
    );
    assert.equal(listenFromEnv({ MCP_WRITE_TIMEOUT_MS: '2000' }).writeTimeoutMs, 2000);
    refused(
      () => listenFromEnv({ MCP_WRITE_TIMEOUT_MS: '999' }),
      /^MCP_WRITE_TIMEOUT_MS must be an integer from 1000 to 600000, got "999"$/,
    );
  });

  test('limits: the defaults, the keep-alive fixed; each bound names its variable', () => {
    const limits = limitsFromEnv({});
    assert.equal(limits.taskTtlMs, 86_400_000);
    assert.equal(limits.inputStateTtlSeconds, 3600);
    assert.deepEqual(limits.listen, {
      maxTasksPerStream: 100,
      maxStreams: 1000,
      maxStreamsPerPrincipal: 20,
      keepAliveMs: 15_000, // "a keep-alive comment every 15 s"
    });
    assert.equal(limitsFromEnv({ MCP_MAX_RUNNING_TASKS: '0' }).maxRunningTasks, 0);
    assert.equal(limits.maxStartsPerSecond, 50);
    assert.equal(limits.maxWaitsPerPrincipal, 100);
    assert.deepEqual(limits.fairnessWeights, new Map());
    assert.deepEqual(
      limitsFromEnv({ MCP_FAIRNESS_WEIGHTS: 'alice=2, bob=0.5' }).fairnessWeights,
      new Map([
        ['alice', 2],
        ['bob', 0.5],
      ]),
    );
    refused(
      () => limitsFromEnv({ MCP_FAIRNESS_WEIGHTS: 'alice=0' }),
      /^MCP_FAIRNESS_WEIGHTS: "alice=0" is not principal=weight \(a number from 0.001 to 1000\)/,
    );
    refused(
      () => limitsFromEnv({ MCP_MAX_WAITS_PER_PRINCIPAL: '-1' }),
      /^MCP_MAX_WAITS_PER_PRINCIPAL must be an integer from 0/,
    );
    // The fleet's size is Temporal's count, not a setting: any bound stands, whatever the fleet.
    assert.equal(limitsFromEnv({ MCP_MAX_WAITS_PER_PRINCIPAL: '1' }).maxWaitsPerPrincipal, 1);
    assert.equal(
      limitsFromEnv({ MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL: '1' }).listen.maxStreamsPerPrincipal,
      1,
    );
    assert.equal(limits.stuckRunGraceMs, 15 * 60 * 1000);
    assert.equal(limitsFromEnv({ MCP_STUCK_RUN_GRACE_MS: '0' }).stuckRunGraceMs, 0);
    refused(
      () => limitsFromEnv({ MCP_STUCK_RUN_GRACE_MS: '-1' }),
      /^MCP_STUCK_RUN_GRACE_MS must be an integer from 0 to 604800000/,
    );
    refused(
      () => limitsFromEnv({ MCP_TEMPORAL_TIMEOUT_MS: '100' }),
      /^MCP_TEMPORAL_TIMEOUT_MS must be an integer from 500 to 120000/,
    );
    refused(
      () => limitsFromEnv({ MCP_INPUT_STATE_TTL_SECONDS: '5' }),
      /^MCP_INPUT_STATE_TTL_SECONDS must be an integer from 10/,
    );
  });

  test('polling: the pacing follows the steady interval; its bounds are the interval and the ceiling', () => {
    const byDefault = pollingFromEnv({});
    assert.deepEqual(byDefault.pollPacing, {
      intervalMs: 2000,
      fastIntervalMs: 500,
      inputIntervalMs: 30_000,
      maxIntervalMs: 60_000,
      minIntervalMs: 0,
      jitter: 0.2,
    });
    const slow = pollingFromEnv({ MCP_POLL_INTERVAL_MS: '120000', MCP_POLL_MIN_INTERVAL_MS: '1000' });
    assert.equal(slow.pollIntervalMs, 120_000);
    assert.equal(slow.pollMinIntervalMs, 1000);
    assert.deepEqual(
      [slow.pollPacing.fastIntervalMs, slow.pollPacing.inputIntervalMs, slow.pollPacing.maxIntervalMs],
      [500, 120_000, 120_000],
    );
    refused(
      () => pollingFromEnv({ MCP_POLL_INTERVAL_MS: '1000', MCP_POLL_FAST_INTERVAL_MS: '2000' }),
      /^MCP_POLL_FAST_INTERVAL_MS must be an integer from 100 to 1000, got "2000"$/,
    );
    refused(
      () => pollingFromEnv({ MCP_POLL_MAX_INTERVAL_MS: '5000', MCP_POLL_INPUT_INTERVAL_MS: '6000' }),
      /^MCP_POLL_INPUT_INTERVAL_MS must be an integer from 2000 to 5000/,
    );
    refused(
      () => pollingFromEnv({ MCP_POLL_JITTER_PERCENT: '51' }),
      /^MCP_POLL_JITTER_PERCENT must be an integer from 0 to 50/,
    );
  });

  test('budgets: the wait budget and per-client budgets, lower-cased; bad entries named', () => {
    assert.deepEqual(budgetsFromEnv({}), {
      waitBudgetMs: 20_000,
      clientWaitBudgets: new Map(),
    });
    assert.deepEqual(
      [...budgetsFromEnv({ MCP_CLIENT_WAIT_BUDGETS: 'Desk=0' }).clientWaitBudgets],
      [['desk', 0]],
    );
    refused(
      () => budgetsFromEnv({ MCP_WAIT_BUDGET_MS: '600001' }),
      /^MCP_WAIT_BUDGET_MS must be an integer from 0 to 600000/,
    );
    refused(
      () => budgetsFromEnv({ MCP_CLIENT_WAIT_BUDGETS: 'desk=fast' }),
      /^MCP_CLIENT_WAIT_BUDGETS: "desk=fast" is not client-name=milliseconds \(0 to 600000\)/,
    );
  });

  test('auth: scopes need a listed principal, with or without OAuth; the first-start token only beyond loopback', () => {
    const tokens = { MCP_AUTH_TOKENS: `ops:${'o'.repeat(20)}` };
    const auth = (host: string, oauth: boolean, env: NodeJS.ProcessEnv) =>
      parseSettings(authSchema(host, oauth), env);
    assert.deepEqual(
      [...auth('0.0.0.0', true, { ...tokens, MCP_AUTH_TOKEN_SCOPES: 'ops=a:b c' }).staticScopes],
      [['ops', ['a:b', 'c']]],
    );
    // Static tokens alone: a catalog tool's `scopes` still hold for a principal given scopes.
    assert.deepEqual(
      [...auth('127.0.0.1', false, { ...tokens, MCP_AUTH_TOKEN_SCOPES: 'ops=a' }).staticScopes],
      [['ops', ['a']]],
    );
    refused(
      () => auth('127.0.0.1', true, { ...tokens, MCP_AUTH_TOKEN_SCOPES: 'ci=a' }),
      /^MCP_AUTH_TOKEN_SCOPES: "ci=a" is not principal=scopes with a principal of MCP_AUTH_TOKENS$/,
    );
    refused(
      () => auth('127.0.0.1', true, { ...tokens, MCP_AUTH_TOKEN_SCOPES: 'ops=a"b' }),
      /^MCP_AUTH_TOKEN_SCOPES \(ops\): "a"b" is not a valid OAuth scope$/,
    );
    const file = join(tmpdir(), 'never-written', 'auth-tokens');
    assert.equal(
      auth('127.0.0.1', false, { MCP_FIRST_START_TOKEN_FILE: file }).firstStartTokenFile,
      undefined,
    );
    assert.equal(auth('0.0.0.0', true, { MCP_FIRST_START_TOKEN_FILE: file }).firstStartTokenFile, undefined);
  });

  test('codec: the server needs keys; origins and principals are checked', () => {
    assert.deepEqual(codecSettingsFromEnv({}, 'default'), {});
    const keys = { MCP_CODEC_KEYS: `k1=${KEY}` };
    assert.ok(codecSettingsFromEnv(keys, 'default').codec);
    assert.equal(codecSettingsFromEnv(keys, 'default').codecServer, undefined);
    assert.deepEqual(
      codecSettingsFromEnv(
        { ...keys, MCP_CODEC_SERVER: '1', MCP_CODEC_CORS_ORIGINS: 'http://localhost:8233/' },
        'ns',
      ).codecServer,
      { namespace: 'ns', corsOrigins: ['http://localhost:8233'] },
    );
    refused(
      () => codecSettingsFromEnv({ MCP_CODEC_SERVER: 'true' }, 'ns'),
      /^MCP_CODEC_SERVER=true needs the codec keys/,
    );
    refused(
      () => codecSettingsFromEnv({ ...keys, MCP_CODEC_SERVER: 'on' }, 'ns'),
      /^MCP_CODEC_SERVER must be "true" or "false"/,
    );
    refused(
      () =>
        codecSettingsFromEnv(
          { ...keys, MCP_CODEC_SERVER: 'true', MCP_CODEC_CORS_ORIGINS: 'http://ui/x' },
          'ns',
        ),
      /^MCP_CODEC_CORS_ORIGINS: "http:\/\/ui\/x" is not an origin/,
    );
    refused(
      () => codecSettingsFromEnv({ ...keys, MCP_CODEC_SERVER: 'true', MCP_CODEC_PRINCIPALS: 'a/b' }, 'ns'),
      /^MCP_CODEC_PRINCIPALS: "a\/b" is not a valid principal$/,
    );
  });

  test('artifacts, tracing, the catalog file: defaults and named errors', async () => {
    assert.equal(artifactsFromEnv({}).readMaxBytes, 33_554_432);
    assert.equal(artifactsFromEnv({}).store.kind, 'local');
    refused(
      () => artifactsFromEnv({ MCP_ARTIFACT_READ_MAX_BYTES: '1' }),
      /^MCP_ARTIFACT_READ_MAX_BYTES must be an integer from 1024/,
    );
    refused(() => artifactsFromEnv({ MCP_ARTIFACT_STORE: 'ftp' }), /^MCP_ARTIFACT_STORE must be/);
    assert.equal(traceFromEnv({}).tracePrincipal, false);
    assert.equal(traceFromEnv({ MCP_TRACE_PRINCIPAL: 'true' }).tracePrincipal, true);
    refused(
      () => traceFromEnv({ MCP_TRACE_PRINCIPAL: 'maybe' }),
      /^MCP_TRACE_PRINCIPAL must be "true" or "false", got "maybe"$/,
    );
    assert.equal(toolsFileFromEnv({ MCP_TOOLS_FILE: '  ' }), undefined);
    assert.equal(toolsFileFromEnv({ MCP_TOOLS_FILE: ' tools.json ' }), 'tools.json');
    const builtIn = await loadCatalog(undefined, { taskQueue: 'q', waitBudgetMs: 1000 }, {});
    assert.deepEqual(
      builtIn.map((tool) => [tool.name, tool.taskQueue]),
      [['start_mining', 'q']],
    );
  });
});

describe('loadSettings', () => {
  test('every field, from an empty environment', async () => {
    const settings = await loadSettings({});
    assert.deepEqual(Object.keys(settings).sort(), [
      'artifacts',
      'authTokens',
      'bodyLimitBytes',
      'clientWaitBudgets',
      'fairnessWeights',
      'host',
      'inputStateTtlSeconds',
      'listen',
      'maxConnections',
      'maxRunningTasks',
      'maxStartsPerSecond',
      'maxWaitsPerPrincipal',
      'pollIntervalMs',
      'pollMinIntervalMs',
      'pollPacing',
      'port',
      'queryTimeoutMs',
      'readyTimeoutMs',
      'requestTimeoutMs',
      'staticScopes',
      'stuckRunGraceMs',
      'taskTtlMs',
      'temporal',
      'temporalTimeoutMs',
      'tools',
      'tracePrincipal',
      'waitBudgetMs',
      'writeTimeoutMs',
    ]);
    assert.equal(settings.tools[0]?.waitBudgetMs, 20_000);
  });

  test('the optional fields appear when set', async () => {
    const settings = await loadSettings({
      MCP_HOST: '0.0.0.0',
      MCP_OAUTH_ISSUER: ISSUER,
      MCP_OAUTH_AUDIENCE: AUDIENCE,
      MCP_CODEC_KEYS: `k1=${KEY}`,
    });
    assert.equal(settings.oauth?.audience, AUDIENCE);
    assert.ok(settings.codec);
    assert.equal(settings.toolsFile, undefined);
    assert.equal(settings.firstStartTokenFile, undefined);
  });

  test('a secret (writeOnly) argument without a payload codec stops the gateway, naming the tool and the two ways out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-secrets-'));
    try {
      const file = join(dir, 'tools.json');
      const schema = {
        type: 'object',
        properties: { text: { type: 'string' }, api_key: { type: 'string', writeOnly: true } },
      };
      writeFileSync(
        file,
        JSON.stringify({
          tools: [{ name: 'echo_secret', description: 'Echoes.', workflow: 'echo', inputSchema: schema }],
        }),
      );
      await assert.rejects(loadSettings({ MCP_TOOLS_FILE: file }), (err: Error) => {
        assert.match(err.message, /echo_secret \(api_key\)/);
        assert.match(err.message, /MCP_CODEC_KEYS/);
        assert.match(err.message, /MCP_ALLOW_PLAINTEXT_SECRETS=true/);
        return true;
      });
      const allowed = await loadSettings({ MCP_TOOLS_FILE: file, MCP_ALLOW_PLAINTEXT_SECRETS: 'true' });
      assert.deepEqual(allowed.plaintextSecrets, ['echo_secret (api_key)'], 'said in the start log');
      const encrypted = await loadSettings({ MCP_TOOLS_FILE: file, MCP_CODEC_KEYS: `k1=${KEY}` });
      assert.equal(encrypted.plaintextSecrets, undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a secret nested in an object, in array items or behind a $ref stops the gateway without a codec as a top-level one does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-nested-secrets-'));
    try {
      const file = join(dir, 'tools.json');
      const schema = {
        type: 'object',
        $defs: { Key: { type: 'string', writeOnly: true } },
        properties: {
          text: { type: 'string' },
          auth: { type: 'object', properties: { token: { type: 'string', writeOnly: true } } },
          mirrors: { type: 'array', items: { type: 'object', properties: { key: { $ref: '#/$defs/Key' } } } },
        },
      };
      writeFileSync(
        file,
        JSON.stringify({
          tools: [{ name: 'echo_nested', description: 'Echoes.', workflow: 'echo', inputSchema: schema }],
        }),
      );
      await assert.rejects(loadSettings({ MCP_TOOLS_FILE: file }), (err: Error) => {
        assert.match(err.message, /echo_nested \(auth\.token, mirrors\[\]\.key\)/);
        assert.match(err.message, /MCP_CODEC_KEYS/);
        assert.match(err.message, /MCP_ALLOW_PLAINTEXT_SECRETS=true/);
        return true;
      });
      const allowed = await loadSettings({ MCP_TOOLS_FILE: file, MCP_ALLOW_PLAINTEXT_SECRETS: 'true' });
      assert.deepEqual(allowed.plaintextSecrets, ['echo_nested (auth.token, mirrors[].key)']);
      const encrypted = await loadSettings({ MCP_TOOLS_FILE: file, MCP_CODEC_KEYS: `k1=${KEY}` });
      assert.equal(encrypted.plaintextSecrets, undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a bad value is one line naming the variable, not a schema dump', async () => {
    await assert.rejects(loadSettings({ MCP_READY_TIMEOUT_MS: 'soon' }), (err: Error) => {
      assert.equal(err.message, 'MCP_READY_TIMEOUT_MS must be an integer from 100 to 60000, got "soon"');
      return true;
    });
    await assert.rejects(
      loadSettings({ MCP_HOST: '0.0.0.0' }),
      /^Error: refusing to listen on 0\.0\.0\.0 without authentication/,
    );
  });
});
