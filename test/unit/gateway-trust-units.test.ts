// The trust pieces that need no server: token parsing and comparison, the bind check, the server
// secret, keyed task ids, argument comparison, the poll rate limiter and the limits' settings.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { principalForToken } from '../../gateway/http/bearer-auth.ts';
import { readMcpBody } from '../../gateway/http/body.ts';
import { isLoopback, isLoopbackPeer, loopbackHostnames } from '../../gateway/http/loopback.ts';
import { PollRateLimiter, polledTasks, pollRateLimit } from '../../gateway/http/poll-limit.ts';
import { Catalog, catalogTool } from '../../gateway/mcp/catalog.ts';
import { readMessage } from '../../gateway/mcp/methods.ts';
import { loadServerSecret, SECRET_FILE_NAME } from '../../gateway/server-secret.ts';
import { authTokensFromEnv, parseAuthTokens } from '../../gateway/settings/auth.ts';
import { loadSettings } from '../../gateway/settings/index.ts';
import { assertSafeBind } from '../../gateway/settings/listen.ts';
import { differingArguments, isOwnedBy, keyedTaskId, newTaskId } from '../../gateway/temporal/task-ids.ts';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-9876543210ab';

describe('bearer tokens', () => {
  test('principal:token pairs separated by commas, spaces or lines; # comments in files', async () => {
    const tokens = parseAuthTokens(`# team\nalice:${ALICE}\n\nbob:${BOB}, carol:${'c'.repeat(20)}`, 'test');
    assert.deepEqual([...tokens.keys()], ['alice', 'bob', 'carol']);
    assert.equal(tokens.get('bob'), BOB);
  });

  test('bad lists are refused, naming the problem and never echoing a token', async () => {
    for (const [text, problem] of [
      [`alice${ALICE}`, /not a valid principal/],
      [`:${ALICE}`, /not a valid principal/],
      ['alice:short', /shorter than 16/],
      [`alice:${ALICE},alice:${BOB}`, /listed twice/],
      [`alice:${ALICE},bob:${ALICE}`, /share a token/],
      [`al ice:${ALICE}`, /not a valid principal/],
    ] as const) {
      assert.throws(
        () => parseAuthTokens(text, 'MCP_AUTH_TOKENS'),
        (err: Error) => {
          assert.match(err.message, problem);
          assert.doesNotMatch(err.message, new RegExp(ALICE));
          return true;
        },
      );
    }
  });

  test('a token maps to its principal; anything else to none', async () => {
    const tokens = parseAuthTokens(`alice:${ALICE},bob:${BOB}`, 'test');
    assert.equal(principalForToken(tokens, ALICE), 'alice');
    assert.equal(principalForToken(tokens, BOB), 'bob');
    for (const wrong of ['', ALICE.slice(0, -1), `${ALICE}x`, ALICE.toUpperCase()]) {
      assert.equal(principalForToken(tokens, wrong), undefined, wrong);
    }
  });

  test('from MCP_AUTH_TOKENS or MCP_AUTH_TOKENS_FILE, not both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    try {
      const file = join(dir, 'tokens');
      writeFileSync(file, `alice:${ALICE}\n`);
      assert.deepEqual([...authTokensFromEnv({ MCP_AUTH_TOKENS_FILE: file }).keys()], ['alice']);
      assert.deepEqual([...authTokensFromEnv({ MCP_AUTH_TOKENS: `bob:${BOB}` }).keys()], ['bob']);
      assert.equal(authTokensFromEnv({}).size, 0);
      assert.throws(
        () => authTokensFromEnv({ MCP_AUTH_TOKENS: `bob:${BOB}`, MCP_AUTH_TOKENS_FILE: file }),
        /not both/,
      );
      assert.throws(() => authTokensFromEnv({ MCP_AUTH_TOKENS_FILE: join(dir, 'missing') }), /cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('one loopback predicate: 127.0.0.0/8, ::1 and localhost', async () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '127.255.0.9', 'localhost', '::1', '[::1]']) {
      assert.equal(isLoopback(host), true, host);
    }
    for (const host of ['0.0.0.0', '::', '128.0.0.1', '127.0.0.1.example.com', '10.0.0.1']) {
      assert.equal(isLoopback(host), false, host);
    }
    assert.ok(loopbackHostnames('127.0.0.2').includes('127.0.0.2'));
    assert.ok(loopbackHostnames('::1').includes('[::1]'));
  });

  test("a loopback peer is a socket's loopback address, IPv4 ones also as a dual-stack socket names them", async () => {
    for (const peer of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.9'])
      assert.equal(isLoopbackPeer(peer), true, peer);
    // 'localhost' is a name, never a socket's address; no address (a Unix socket) is no loopback peer.
    for (const peer of [
      '192.0.2.2',
      '::ffff:192.0.2.2',
      'fd00::2',
      '::',
      'localhost',
      '[::1]',
      '',
      undefined,
    ])
      assert.equal(isLoopbackPeer(peer), false, String(peer));
  });

  test('without tokens only a loopback bind is allowed', async () => {
    const none = new Map<string, string>();
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) assertSafeBind(host, none);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      assert.throws(() => assertSafeBind(host, none), /refusing to listen on .* without authentication/);
      assertSafeBind(host, parseAuthTokens(`alice:${ALICE}`, 'test'));
    }
    await assert.rejects(loadSettings({ MCP_HOST: '0.0.0.0' }), /MCP_AUTH_TOKENS/);
  });
});

describe('server secret', () => {
  test('generated once under the data folder (mode 600) and kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-'));
    try {
      const first = loadServerSecret({ MCP_DATA_DIR: join(dir, 'data') });
      const path = join(dir, 'data', SECRET_FILE_NAME);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.ok(first.secret.length >= 32);
      assert.deepEqual(loadServerSecret({ MCP_DATA_DIR: join(dir, 'data') }).secret, first.secret);
      assert.equal(readFileSync(path, 'utf8').trim(), first.secret.toString());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('from MCP_SERVER_SECRET or MCP_SERVER_SECRET_FILE; short secrets refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-'));
    try {
      const value = 's'.repeat(40);
      assert.equal(loadServerSecret({ MCP_SERVER_SECRET: value }).secret.toString(), value);
      writeFileSync(join(dir, 'secret'), `${value}\n`);
      assert.equal(
        loadServerSecret({ MCP_SERVER_SECRET_FILE: join(dir, 'secret') }).secret.toString(),
        value,
      );
      assert.throws(() => loadServerSecret({ MCP_SERVER_SECRET: 'short' }), /at least 32/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('keyed task ids', () => {
  const secret = Buffer.from('k'.repeat(40));
  test('the same (principal, tool, key) gives the same id; any other part or secret another', async () => {
    const id = keyedTaskId(secret, 'alice', { name: 'start_mining', idPrefix: 'mine' }, 'job-1');
    assert.equal(id, keyedTaskId(secret, 'alice', { name: 'start_mining', idPrefix: 'mine' }, 'job-1'));
    assert.match(id, /^mine-[A-Za-z0-9_-]{32}$/);
    assert.equal(isOwnedBy(secret, 'alice', id), true);
    assert.equal(isOwnedBy(secret, 'bob', id), false);
    const others = [
      keyedTaskId(secret, 'bob', { name: 'start_mining', idPrefix: 'mine' }, 'job-1'),
      keyedTaskId(secret, 'alice', { name: 'other_tool', idPrefix: 'mine' }, 'job-1'),
      keyedTaskId(secret, 'alice', { name: 'start_mining', idPrefix: 'mine' }, 'job-2'),
      keyedTaskId(Buffer.from('x'.repeat(40)), 'alice', { name: 'start_mining', idPrefix: 'mine' }, 'job-1'),
      // No ambiguity from where one part ends and the next begins.
      keyedTaskId(secret, 'alice', { name: 'start_miningjob-1', idPrefix: 'mine' }, ''),
    ];
    assert.equal(new Set([id, ...others]).size, 6);
  });

  test('arguments compare by value, whatever the key order', async () => {
    assert.deepEqual(differingArguments({ a: 1, b: { x: 1, y: 2 } }, { b: { y: 2, x: 1 }, a: 1 }), []);
    assert.deepEqual(differingArguments({ difficulty: 8, blocks: 1 }, { difficulty: 9, blocks: 1 }), [
      'difficulty',
    ]);
    assert.deepEqual(differingArguments({ difficulty: 8 }, { difficulty: 8, data: 'x' }), ['data']);
  });
});

describe('poll rate limiting', () => {
  test('a poll sooner than the interval is refused with the time left; others pass', async () => {
    let now = 1_000;
    const limiter = new PollRateLimiter(500, () => now);
    assert.equal(limiter.check('alice', 't1'), 0);
    now += 200;
    assert.equal(limiter.check('alice', 't1'), 300);
    assert.equal(limiter.check('alice', 't2'), 0, 'another task');
    assert.equal(limiter.check('bob', 't1'), 0, 'another principal');
    now += 300;
    assert.equal(limiter.check('alice', 't1'), 0, 'refused polls do not move the clock');
    now += 10_000;
    limiter.check('carol', 't9');
    assert.equal(limiter.size, 1, 'old entries are forgotten');
  });

  test('the memory has a hard bound: the oldest entries go first past it', async () => {
    let now = 0;
    const limiter = new PollRateLimiter(60_000, () => now, 1_000);
    for (let i = 0; i < 10_000; i++) {
      now++;
      assert.equal(limiter.check('alice', `t${i}`), 0);
    }
    assert.equal(limiter.size, 1_000);
    assert.equal(limiter.check('alice', 't9999'), 60_000, 'the newest are kept');
    assert.equal(limiter.check('alice', 't0'), 0, 'the oldest were forgotten');
  });

  // The mining tool as the catalog serves it, and ids issued by a gateway with this secret.
  const secret = Buffer.from('p'.repeat(40));
  const mining = catalogTool(
    { name: 'start_mining', description: 'Mines.', workflow: 'mine', inputSchema: { type: 'object' } },
    { taskQueue: 'q', waitBudgetMs: 1_000 },
  );
  const catalog = new Catalog([mining]);
  const read = (body: unknown) =>
    readMcpBody(body, (envelope, message) => readMessage(catalog, envelope, message));
  const polled = (body: unknown) => polledTasks(read(body)).map((task) => task.id);
  const mine = (n: number) => newTaskId(secret, `alice${n}`, 'start_mining');
  const [a, b] = [mine(1), mine(2)];

  test('every poll of a batch counts; ids not issued to the caller are never remembered', async () => {
    const poll = (taskId: string) => ({ method: 'tasks/get', params: { taskId } });
    assert.deepEqual(polled([poll(a), { method: 'tools/list' }, poll(b), poll(a)]), [a, b, a]);
    assert.deepEqual(polled(poll(a)), [a]);

    const limiter = new PollRateLimiter(1_000, () => 0);
    const answers: number[] = [];
    const hook = pollRateLimit(limiter, {
      principalOf: () => 'alice',
      issuedTo: (task, principal) => isOwnedBy(secret, principal, task),
    });
    const reply = {
      code(status: number) {
        answers.push(status);
        return this;
      },
      header() {
        return this;
      },
      send() {
        return this;
      },
    };
    const call = (body: unknown) => hook({ body, mcpBody: read(body) } as never, reply as never);
    // 10,000 ids of other principals: each answered "not found" later, none remembered here.
    for (let i = 0; i < 10_000; i++) await call(poll(newTaskId(secret, 'mallory', 'start_mining')));
    assert.equal(limiter.size, 0);
    assert.deepEqual(answers, []);
    // A batch polling one task twice is as fast as two polls: refused.
    const own = newTaskId(secret, 'alice', 'start_mining');
    await call([poll(own), poll(own)]);
    assert.deepEqual(answers, [429]);
    assert.equal(limiter.size, 1);
  });

  test('polls are what the method table says: tasks/get and the result companions', async () => {
    assert.deepEqual(polled({ method: 'tasks/get', params: { taskId: a } }), [a]);
    const companion = (name: string) => ({
      method: 'tools/call',
      params: { name, arguments: { workflow_id: b } },
    });
    assert.deepEqual(polled(companion('get_mining_result')), [b]);
    assert.deepEqual(polled(companion('cancel_mining')), [], 'a cancel is no poll');
    assert.deepEqual(polled({ method: 'tasks/cancel', params: { taskId: a } }), []);
    assert.deepEqual(polled({ method: 'tools/call', params: { name: 'start_mining', arguments: {} } }), []);
    assert.deepEqual(
      polled({ method: 'tasks/get', params: { taskId: 'not-an-id' } }),
      [],
      'malformed: nobody owns it',
    );
    assert.deepEqual(polled([]), []);
  });

  test('settings: off by default, never above the advertised poll interval', async () => {
    const config = await loadSettings({});
    assert.equal(config.pollMinIntervalMs, 0);
    assert.equal(config.maxRunningTasks, 100);
    assert.equal(config.bodyLimitBytes, 65_536);
    assert.equal((await loadSettings({ MCP_POLL_MIN_INTERVAL_MS: '1500' })).pollMinIntervalMs, 1500);
    await assert.rejects(
      loadSettings({ MCP_POLL_INTERVAL_MS: '1000', MCP_POLL_MIN_INTERVAL_MS: '1500' }),
      /MCP_POLL_MIN_INTERVAL_MS/,
    );
  });
});
