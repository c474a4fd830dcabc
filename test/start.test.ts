// `npm start` as a user runs it: a dev server, the worker and the gateway come up, one real tool call
// goes through, and a Ctrl-C (SIGINT to the whole foreground process group) leaves nothing behind.
// A first run on a machine without the Temporal CLI installs it by itself, on a terminal.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEFAULT_TASK_QUEUE } from '../common/temporal-env.ts';
import { freePort } from '../launcher/free-port.ts';
import { catalogLabel, exampleCall, toolRows } from '../launcher/start-banner.ts';
import { codecEndpoint, codecEnv, gatewayLogEnv, mcpUrl, startConfig } from '../launcher/start-config.ts';
import { findTemporalCli, TEMPORAL_CLI_VERSION } from '../launcher/temporal-cli.ts';
import { eventually } from './support/temporal.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  cmd: string;
}

function procInfo(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name sits in parentheses and may contain spaces: read the fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid: Number(fields[1]), state: fields[0] ?? '?', cmd };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (not `root` itself), from /proc. */
function descendants(root: number): ProcInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => procInfo(Number(name)))
    .filter((info): info is ProcInfo => info !== undefined);
  const found: ProcInfo[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const children = all.filter((info) => frontier.includes(info.ppid));
    found.push(...children);
    frontier = children.map((info) => info.pid);
  }
  return found;
}

/** Gone, or exited and waiting to be reaped. */
function isGone(pid: number): boolean {
  const info = procInfo(pid);
  return info === undefined || info.state === 'Z' || info.state === 'X';
}

describe('start configuration', () => {
  test('defaults: dev server on 7233 with the UI on 8233, database under .data, gateway on 127.0.0.1:3000', () => {
    const config = startConfig({}, '/project');
    assert.equal(config.dataDir, '/project/.data');
    assert.deepEqual(config.devServer, {
      dbFilename: '/project/.data/temporal.db',
      port: 7233,
      uiPort: 8233,
    });
    assert.equal(mcpUrl(config), 'http://127.0.0.1:3000/mcp');
  });

  test('TEMPORAL_ADDRESS means no dev server', () => {
    const config = startConfig({ TEMPORAL_ADDRESS: 'temporal.example:7233' }, '/project');
    assert.equal(config.devServer, undefined);
    assert.equal(config.temporalAddress, 'temporal.example:7233');
  });

  test('a wildcard bind is probed and advertised on loopback', () => {
    assert.equal(mcpUrl(startConfig({ MCP_HOST: '0.0.0.0', MCP_PORT: '8080' })), 'http://127.0.0.1:8080/mcp');
  });

  test('MCP_START_CODEC: a key file unless keys are set, the codec server on, the Web UI its origin', () => {
    assert.equal(startConfig({}).codec, false);
    const config = startConfig({ MCP_START_CODEC: 'true', MCP_PORT: '3100' });
    assert.equal(config.codec, true);
    assert.equal(codecEndpoint(config), 'http://127.0.0.1:3100/codec');
    let made = 0;
    const keysFile = () => {
      made += 1;
      return '/project/.data/codec-keys';
    };
    assert.deepEqual(codecEnv({}, 8233, keysFile), {
      MCP_CODEC_KEYS_FILE: '/project/.data/codec-keys',
      MCP_CODEC_SERVER: 'true',
      MCP_CODEC_CORS_ORIGINS: 'http://localhost:8233,http://127.0.0.1:8233',
    });
    assert.equal(made, 1);
    assert.deepEqual(
      codecEnv({ MCP_CODEC_KEYS: 'a=x', MCP_CODEC_CORS_ORIGINS: 'https://ui.example' }, 8233, keysFile),
      {
        MCP_CODEC_SERVER: 'true',
      },
    );
    assert.equal(made, 1, 'no key file when keys are configured');
    assert.throws(() => startConfig({ MCP_START_CODEC: 'yes' }), /MCP_START_CODEC must be "true" or "false"/);
  });

  test('a bad port is refused with the variable named', () => {
    assert.throws(() => startConfig({ TEMPORAL_UI_PORT: 'eighty' }), /TEMPORAL_UI_PORT/);
    assert.throws(() => startConfig({ MCP_PORT: '70000' }), /MCP_PORT/);
  });
  test('the gateway logs readable lines when npm start writes to a terminal, unless LOG_FORMAT says otherwise', () => {
    assert.deepEqual(gatewayLogEnv({}, true), { LOG_FORMAT: 'pretty', FORCE_COLOR: '1' });
    assert.deepEqual(gatewayLogEnv({ NO_COLOR: '1' }, true), { LOG_FORMAT: 'pretty' });
    assert.deepEqual(gatewayLogEnv({}, false), {});
    assert.deepEqual(gatewayLogEnv({ LOG_FORMAT: 'json' }, true), {});
  });

  test('the banner: catalog file or built-in, each tool with its companions, a call to try', () => {
    assert.equal(catalogLabel(undefined, '/project'), 'built-in');
    assert.equal(catalogLabel('catalog/tools.yaml', '/project'), '/project/catalog/tools.yaml');
    const mining = {
      name: 'start_mining',
      inputSchema: {
        properties: {
          difficulty: { type: 'integer' },
          blocks: { type: 'integer' },
          data: { type: 'string' },
        },
      },
      companions: { result: 'get_mining_result', cancel: 'cancel_mining', respond: 'respond_to_mining' },
    };
    const echo = {
      name: 'echo',
      inputSchema: { properties: { text: { type: 'string' } }, required: ['text'] },
      companions: { result: 'get_echo_result', cancel: 'cancel_echo' },
    };
    assert.deepEqual(toolRows([echo, mining]), [
      'echo          (with get_echo_result, cancel_echo)',
      'start_mining  (with get_mining_result, cancel_mining, respond_to_mining)',
    ]);
    // The call CLI passes no --text: the example is for the first tool it can call.
    assert.equal(
      exampleCall([echo, mining], 'http://127.0.0.1:3000/mcp', false),
      'npm run call -- start_mining --difficulty 22 --blocks 3',
    );
    assert.equal(
      exampleCall([mining], 'http://127.0.0.1:8080/mcp', true),
      'MCP_TOKEN=<your token> npm run call -- start_mining --difficulty 22 --blocks 3 --url http://127.0.0.1:8080/mcp',
    );
    assert.equal(exampleCall([echo], 'http://127.0.0.1:3000/mcp', false), undefined);
  });

  test('ports handed to the dev server are free and outside the range it picks its own ports from', async () => {
    const [ephemeralStart] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) assert.ok(port >= 1024 && port < Number(ephemeralStart), `${port}`);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '127.0.0.1', () => resolve());
    });
    server.close();
  });
});

interface NpmStart {
  npm: ChildProcess;
  pid: number;
  /** What it printed (from a terminal: without carriage returns). */
  output(): string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  temporalPort: number;
  mcpPort: number;
  uiPort: number;
  /** Resolves once the gateway answers /readyz and the ready banner is out. */
  ready(timeoutMs?: number): Promise<void>;
  /** A Ctrl-C: typed on its terminal, else SIGINT to its process group. */
  interrupt(): void;
}

interface NpmStartOptions {
  /** The environment to start from (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Settings given on top (after the inherited gateway settings are cleared). */
  set?: Record<string, string>;
  /** Run it on a terminal of its own (util-linux `script`), as a person does. */
  terminal?: boolean;
}

/**
 * `npm start` in its own process group, like a shell job: a SIGINT to the group is a Ctrl-C. On a
 * terminal, `script` gives it a pseudo-terminal, and a Ctrl-C is typed into it.
 */
async function npmStart(dataDir: string, options: NpmStartOptions = {}): Promise<NpmStart> {
  const [temporalPort, uiPort, mcpPort] = [await freePort(), await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...(options.env ?? process.env),
    MCP_DATA_DIR: dataDir,
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(uiPort),
    MCP_HOST: '127.0.0.1',
    MCP_PORT: String(mcpPort),
    npm_config_update_notifier: 'false',
    // npm's own spinner: on Node.js 26 it draws frames on the terminal ahead of the launcher's lines.
    npm_config_progress: 'false',
  };
  // The path a user gets: a dev server of its own and the workflows bundled at start.
  delete env.TEMPORAL_ADDRESS;
  delete env.WORKFLOW_BUNDLE_PATH;
  delete env.MCP_AUTH_TOKENS;
  delete env.MCP_TOOLS_FILE;
  delete env.LOG_FORMAT;
  Object.assign(env, options.set);
  // A terminal emulator names itself; `script` passes on whatever this process has, maybe nothing.
  if (options.terminal) env.TERM = 'xterm-256color';
  const npm = options.terminal
    ? spawn('script', ['-qfec', 'npm start', '/dev/null'], { cwd: ROOT, env, detached: true })
    : spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString().replaceAll('\r', '');
  };
  npm.stdout?.on('data', collect);
  npm.stderr?.on('data', collect);
  const exited = once(npm, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return {
    npm,
    pid: npm.pid as number,
    output: () => output,
    exited,
    temporalPort,
    mcpPort,
    uiPort,
    async ready(timeoutMs = 120_000) {
      await eventually(
        async () => {
          if (npm.exitCode !== null || npm.signalCode !== null) throw new Error('npm start exited early');
          const response = await fetch(`http://127.0.0.1:${mcpPort}/readyz`);
          return response.ok && output.includes('Press Ctrl-C') ? true : undefined;
        },
        timeoutMs,
        'npm start to be ready',
        250,
      ).catch((err) => {
        throw new Error(`${(err as Error).message}\n--- npm start output ---\n${output}`);
      });
    },
    interrupt() {
      if (options.terminal) npm.stdin?.write('\x03');
      else process.kill(-(npm.pid as number), 'SIGINT');
    },
  };
}

/** Processes from `pids` still alive, with their command lines. */
function stillRunning(pids: number[]): string[] {
  return pids.filter((pid) => !isGone(pid)).map((pid) => `${pid} ${procInfo(pid)?.cmd}`);
}

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-gw-start-'));
  const runs: NpmStart[] = [];
  after(() => {
    // Only finds something to kill when an assertion failed midway.
    for (const run of runs) {
      if (run.npm.exitCode !== null || run.npm.signalCode !== null) continue;
      for (const info of descendants(run.pid)) {
        try {
          process.kill(info.pid, 'SIGKILL');
        } catch {}
      }
      try {
        process.kill(-run.pid, 'SIGKILL');
      } catch {}
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('runs a tool call end to end, then Ctrl-C stops every process it started', async () => {
    const started = Date.now();
    const run = await npmStart(dataDir);
    runs.push(run);
    await run.ready();
    const readyMs = Date.now() - started;
    const output = run.output;
    const endpoint = `http://127.0.0.1:${run.mcpPort}/mcp`;
    assert.match(output(), new RegExp(`MCP endpoint +${endpoint.replaceAll('.', '\\.')}`));
    assert.match(output(), new RegExp(`Temporal Web UI +http://localhost:${run.uiPort}`));
    assert.match(output(), /^worker +\| worker: polling task queue/m, 'worker lines carry their prefix');
    assert.match(output(), /^gateway +\| /m, 'gateway lines carry their prefix');
    const ui = await fetch(`http://localhost:${run.uiPort}/`);
    assert.equal(ui.status, 200, 'the Web UI answers');

    const client = new Client({ name: 'npm-start-smoke', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    const result = await client.callTool({ name: 'start_mining', arguments: { difficulty: 4, blocks: 2 } });
    await client.close();
    assert.notEqual(result.isError, true, JSON.stringify(result));
    const structured = result.structuredContent as {
      status?: string;
      workflow_id?: string;
      result?: unknown;
    };
    assert.equal(structured.status, 'completed', JSON.stringify(result));
    assert.ok(structured.workflow_id);
    assert.ok(structured.result);

    // The worker health check the compose file uses sees this host's worker polling, and only for its queue.
    const healthcheck = (queue: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/worker-healthcheck.ts'], {
        cwd: ROOT,
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: `127.0.0.1:${run.temporalPort}`,
          TEMPORAL_TASK_QUEUE: queue,
        },
        encoding: 'utf8',
        timeout: 30_000,
      });
    const healthy = healthcheck(DEFAULT_TASK_QUEUE);
    assert.equal(healthy.status, 0, `${healthy.stdout}${healthy.stderr}`);
    const unhealthy = healthcheck('a-queue-nobody-polls');
    assert.equal(unhealthy.status, 1, `${unhealthy.stdout}${unhealthy.stderr}`);

    const tree = descendants(run.pid);
    const commands = tree.map((info) => info.cmd);
    for (const expected of [
      /launcher\/start\.ts/,
      /temporal server start-dev/,
      /worker\/main\.ts/,
      /gateway\/main\.ts/,
    ]) {
      assert.ok(
        commands.some((cmd) => expected.test(cmd)),
        `${expected} among:\n${commands.join('\n')}`,
      );
    }

    const stopAt = Date.now();
    process.kill(-run.pid, 'SIGINT');
    const [code, signal] = await run.exited;
    const stopMs = Date.now() - stopAt;
    // npm reports a Ctrl-C'd script by dying of the same signal, the shell convention for Ctrl-C.
    assert.ok(
      code === 0 || signal === 'SIGINT',
      `npm start ended with code ${code}, signal ${signal}:\n${output()}`,
    );
    // The start script waits for its children before it exits, so nothing may be left even a moment later.
    assert.deepEqual(stillRunning([run.pid, ...tree.map((info) => info.pid)]), [], output());
    // Children first, then the dev server.
    const workerStopped = output().indexOf('worker: stopped');
    const serverStopping = output().indexOf('Stopping server');
    assert.ok(workerStopped > 0 && serverStopping > workerStopped, `stop order:\n${output()}`);
    assert.match(output(), /start +\| stopped/);
    console.log(
      `npm start: ready in ${readyMs} ms, stopped in ${stopMs} ms, ${tree.length} processes checked`,
    );
  });

  test('restarts on the same data folder with a catalog file; when a child dies, stops the rest and exits non-zero', async () => {
    const run = await npmStart(dataDir, { set: { MCP_TOOLS_FILE: 'catalog/tools.yaml' } });
    runs.push(run);
    await run.ready();
    assert.match(
      run.output(),
      new RegExp(`^start +\\| {3}Catalog +${join(ROOT, 'catalog/tools.yaml')}$`, 'm'),
    );
    assert.match(
      run.output(),
      /^start +\| {3}Tools +mine_chain +\(with get_mine_chain_result, cancel_mine_chain, respond_to_mine_chain\)$/m,
    );
    assert.match(
      run.output(),
      new RegExp(
        `^start +\\| {3}npm run call -- mine_chain --difficulty 22 --blocks 3 --url http://127\\.0\\.0\\.1:${run.mcpPort}/mcp$`,
        'm',
      ),
    );
    const tree = descendants(run.pid);
    const worker = tree.find((info) => /worker\/main\.ts/.test(info.cmd));
    assert.ok(worker, tree.map((info) => info.cmd).join('\n'));

    process.kill(worker.pid, 'SIGKILL');
    const [code] = await run.exited;
    assert.equal(code, 1, run.output());
    assert.match(run.output(), /stopping \(the worker exited with SIGKILL\)/);
    assert.deepEqual(stillRunning([run.pid, ...tree.map((info) => info.pid)]), [], run.output());
  });
});

/** `go env` as JSON, or undefined without Go. */
function goEnv(): Record<string, string> | undefined {
  const result = spawnSync('go', ['env', '-json'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? (JSON.parse(result.stdout) as Record<string, string>) : undefined;
}

/**
 * This environment as on a machine that has Go but no Temporal CLI: a throwaway HOME, GOPATH and
 * GOBIN (empty), no TEMPORAL_CLI_PATH, no folder on PATH holding a `temporal`; Go's module and build
 * caches and proxy settings are kept, so the build takes seconds rather than minutes.
 */
function withoutTemporalCli(go: Record<string, string>, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    GOPATH: join(home, 'go'),
    GOBIN: join(home, 'bin'),
  };
  delete env.TEMPORAL_CLI_PATH;
  const kept = [
    'GOMODCACHE',
    'GOCACHE',
    'GOPROXY',
    'GONOPROXY',
    'GOSUMDB',
    'GONOSUMDB',
    'GOPRIVATE',
    'GOFLAGS',
    'GOTOOLCHAIN',
  ];
  for (const name of kept) if (go[name]) env[name] = go[name];
  const withoutCli = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !existsSync(join(dir, 'temporal')));
  env.PATH = [join(go.GOROOT as string, 'bin'), ...withoutCli].join(delimiter);
  return env;
}

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g');

describe('npm start with MCP_START_CODEC=true', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-gw-start-codec-'));
  let run: NpmStart | undefined;
  after(() => {
    if (run && run.npm.exitCode === null && run.npm.signalCode === null) {
      for (const info of descendants(run.pid)) {
        try {
          process.kill(info.pid, 'SIGKILL');
        } catch {}
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('payloads encrypted with a generated key; the Web UI decodes them through the gateway', async () => {
    run = await npmStart(dataDir, { set: { MCP_START_CODEC: 'true' } });
    await run.ready();
    const codecUrl = `http://127.0.0.1:${run.mcpPort}/codec`;
    assert.match(run.output(), new RegExp(`Codec server +${codecUrl.replaceAll('.', '\\.')}`));
    const keyFile = join(dataDir, 'codec-keys');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.match(readFileSync(keyFile, 'utf8'), /^local-[\d-]+=[A-Za-z0-9+/]{43}=$/m);
    // The Web UI is told where its codec server is.
    const settings = (await (await fetch(`http://localhost:${run.uiPort}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    assert.equal(settings.Codec?.Endpoint, codecUrl);

    const secret = `codec-smoke-${process.pid}-${Date.now()}`;
    const client = new Client({ name: 'npm-start-codec', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${run.mcpPort}/mcp`)));
    const result = await client.callTool({
      name: 'start_mining',
      arguments: { difficulty: 4, blocks: 1, data: secret },
    });
    await client.close();
    const answer = result.structuredContent as {
      status?: string;
      workflow_id?: string;
      result?: { data?: string };
    };
    assert.equal(answer.status, 'completed', JSON.stringify(result));
    assert.equal(answer.result?.data, secret, 'the gateway answers in clear');

    // History holds ciphertext; the codec server opens it for the Web UI's origin, as the UI asks.
    // Under the running-task cap the run's workflow id is its slot's: the one run listed.
    const address = ['--address', `127.0.0.1:${run.temporalPort}`];
    type Listed = { execution: { workflowId: string; runId: string } }[];
    const runs = await eventually(
      async () => {
        const listed = spawnSync(
          findTemporalCli() as string,
          ['workflow', 'list', ...address, '-o', 'json'],
          {
            encoding: 'utf8',
          },
        );
        const found = JSON.parse(listed.stdout || '[]') as Listed;
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the run to be listed',
    );
    assert.equal(runs.length, 1, JSON.stringify(runs));
    const { workflowId, runId } = (runs[0] as (typeof runs)[number]).execution;
    assert.ok(workflowId.startsWith('mcp-run-'), workflowId);
    const shown = spawnSync(
      findTemporalCli() as string,
      ['workflow', 'show', '-w', workflowId, '-r', runId, ...address, '-o', 'json'],
      { encoding: 'utf8' },
    );
    assert.equal(shown.status, 0, shown.stderr);
    assert.ok(!shown.stdout.includes(secret));
    type Sealed = { metadata: { encoding: string }; data: string };
    const events = JSON.parse(shown.stdout).events as {
      workflowExecutionCompletedEventAttributes?: { result: { payloads: Sealed[] } };
    }[];
    const sealed = events.find((e) => e.workflowExecutionCompletedEventAttributes)
      ?.workflowExecutionCompletedEventAttributes?.result.payloads[0];
    assert.ok(sealed);
    assert.equal(Buffer.from(sealed.metadata.encoding, 'base64').toString(), 'binary/encrypted');
    const origin = `http://localhost:${run.uiPort}`;
    const decoded = await fetch(`${codecUrl}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, 'x-namespace': 'default' },
      body: JSON.stringify({ payloads: [sealed] }),
    });
    assert.equal(decoded.status, 200);
    assert.equal(decoded.headers.get('access-control-allow-origin'), origin);
    const { payloads } = (await decoded.json()) as { payloads: { data: string }[] };
    assert.equal(JSON.parse(Buffer.from(payloads[0]?.data ?? '', 'base64').toString()).data, secret);

    process.kill(-run.pid, 'SIGINT');
    const [code, signal] = await run.exited;
    assert.ok(code === 0 || signal === 'SIGINT', `npm start ended with code ${code}, signal ${signal}`);
  });
});

describe('npm start on a first run', () => {
  const go = goEnv();
  const hasScript = /util-linux/.test(spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout ?? '');
  const home = mkdtempSync(join(tmpdir(), 'mcp-gw-first-run-'));
  let run: NpmStart | undefined;
  after(() => {
    if (run && run.npm.exitCode === null && run.npm.signalCode === null) {
      for (const info of descendants(run.pid)) {
        try {
          process.kill(info.pid, 'SIGKILL');
        } catch {}
      }
    }
    rmSync(home, { recursive: true, force: true });
  });

  test('a Ctrl-C during the install stops the build at once, and tries no fallback', {
    skip: !go && 'Go is not installed',
  }, async () => {
    const other = join(home, 'interrupted');
    const env = withoutTemporalCli(go as Record<string, string>, other);
    const current = await npmStart(join(other, 'data'), { env });
    run = current;
    await eventually(
      async () => (/^install +\| .* building it with Go$/m.test(current.output()) ? true : undefined),
      60_000,
      'the install to begin',
      50,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${current.output()}`);
    });
    const tree = descendants(current.pid);
    assert.ok(
      tree.some((info) => info.cmd.includes('install-temporal-cli.sh')),
      tree.map((info) => info.cmd).join('\n'),
    );
    const stopAt = Date.now();
    current.interrupt();
    await current.exited;
    const stopMs = Date.now() - stopAt;
    assert.ok(stopMs < 10_000, `stopped in ${stopMs} ms:\n${current.output()}`);
    assert.deepEqual(stillRunning([current.pid, ...tree.map((info) => info.pid)]), [], current.output());
    assert.equal(existsSync(join(other, 'bin', 'temporal')), false);
    assert.doesNotMatch(current.output(), /@temporalio\/testing|error:/);
    assert.match(current.output(), /^start +\| stopped$/m);
    console.log(`npm start stopped in ${stopMs} ms during the install (${tree.length} processes checked)`);
  });

  test('without the Temporal CLI: installs it, gets ready, prints what to try, logs readable lines on the terminal', {
    skip: (!go && 'Go is not installed') || (!hasScript && 'no util-linux script for a terminal'),
  }, async () => {
    const env = withoutTemporalCli(go as Record<string, string>, home);
    const cli = join(home, 'bin', 'temporal');
    assert.equal(findTemporalCli(env), undefined, 'no Temporal CLI to be found before the run');
    const started = Date.now();
    const current = await npmStart(join(home, 'data'), { env, terminal: true });
    run = current;
    await current.ready(600_000);
    const readyMs = Date.now() - started;
    const plain = () => current.output().replace(ANSI_COLOUR, '');

    // The installer said what it does and how long a first build takes, then where the CLI went.
    const version = TEMPORAL_CLI_VERSION.replaceAll('.', '\\.');
    assert.match(
      plain(),
      new RegExp(`^install +\\| The Temporal CLI v${version} .* is not installed: building it with Go$`, 'm'),
    );
    assert.match(plain(), /^install +\| The first build .* takes a few minutes/m);
    assert.match(
      plain(),
      new RegExp(`^install +\\| Built the Temporal CLI v${version} in \\d+ s: ${cli}$`, 'm'),
    );
    assert.match(
      plain(),
      new RegExp(
        `Temporal +127\\.0\\.0\\.1:${current.temporalPort} \\(Temporal CLI dev server \\(${cli}\\)\\)`,
      ),
    );

    // The banner: endpoint, Web UI, catalog, tools, a call to try.
    const endpoint = `http://127.0.0.1:${current.mcpPort}/mcp`;
    assert.match(plain(), new RegExp(`^start +\\| {3}MCP endpoint +${endpoint}$`, 'm'));
    assert.match(
      plain(),
      new RegExp(`^start +\\| {3}Temporal Web UI +http://localhost:${current.uiPort}$`, 'm'),
    );
    assert.match(plain(), /^start +\| {3}Catalog +built-in/m);
    assert.match(
      plain(),
      /^start +\| {3}Tools +start_mining +\(with get_mining_result, cancel_mining, respond_to_mining\)$/m,
    );
    const example = /^start +\| Try it.*\nstart +\| {3}(npm run call -- .*)$/m.exec(plain())?.[1];
    assert.equal(example, `npm run call -- start_mining --difficulty 22 --blocks 3 --url ${endpoint}`);

    // The example works as printed.
    const [command, ...args] = (example as string).split(' ');
    const call = spawn(command as string, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let answer = '';
    call.stdout.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    call.stderr.resume();
    const [callCode] = (await once(call, 'exit')) as [number | null];
    assert.equal(callCode, 0, answer);
    assert.equal(JSON.parse(answer.slice(answer.indexOf('{'))).status, 'completed', answer);

    // On a terminal the gateway's lines are for people: one per request, with colours.
    await eventually(
      async () => (/tools\/call start_mining mine-[A-Za-z0-9_-]{32}\./.test(plain()) ? true : undefined),
      10_000,
      "the gateway's tools/call line",
      50,
    );
    assert.match(
      plain(),
      /^gateway +\| \d\d:\d\d:\d\d\.\d{3} INFO: tools\/call start_mining mine-[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{35} \u2192 (inline|task) \d+ ms$/m,
    );
    assert.ok(current.output().includes(`INFO${String.fromCharCode(27)}[39m: `), 'colours on a terminal');
    assert.doesNotMatch(plain(), /^gateway +\| \{"level"/m, 'no JSON lines on a terminal');

    // `npm test` runs the same installer: it now finds this CLI at once, and so do the tests.
    const again = spawnSync('bash', ['scripts/install-temporal-cli.sh'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(again.stdout.trim(), cli, again.stderr);
    assert.equal(again.stderr, '');
    assert.equal(findTemporalCli(env), cli);

    const tree = descendants(current.pid);
    current.interrupt();
    const [code] = await current.exited;
    assert.ok(code === 0 || code === 130, `npm start ended with code ${code}:\n${current.output()}`);
    assert.deepEqual(stillRunning([current.pid, ...tree.map((info) => info.pid)]), [], current.output());
    assert.match(plain(), /^start +\| stopped$/m);
    console.log(`npm start without the Temporal CLI: installed it and was ready in ${readyMs} ms`);
  });
});
