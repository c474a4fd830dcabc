// The gateway process picks its log format as a person or a log collector needs it: readable lines
// on a terminal (a real pseudo-terminal here, through util-linux `script`) or with LOG_FORMAT=pretty,
// JSON lines when stdout is a pipe or with LOG_FORMAT=json. No Temporal is needed: the gateway
// listens without one, and a request for a missing route is logged all the same.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GATEWAY_NODE_FLAGS } from '../gateway/runtime-flags.ts';
import { freePort } from '../launcher/free-port.ts';
import { eventually } from './support/temporal.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ESC = String.fromCharCode(27);
const PRETTY_LINE = /^\d\d:\d\d:\d\d\.\d{3} INFO: /;
const GATEWAY = [process.execPath, ...GATEWAY_NODE_FLAGS, '--import', 'tsx', 'gateway/main.ts'];
const HAS_SCRIPT = /util-linux/.test(spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout ?? '');

const dataDir = mkdtempSync(join(tmpdir(), 'mcp-gw-log-format-'));
const running: ChildProcess[] = [];
after(() => {
  for (const child of running)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  /** Everything the gateway printed, without the terminal's carriage returns and ^C echo. */
  output: string;
  code: number | null;
}

/**
 * Runs the gateway with `logFormat` (unset: its own choice) on a pipe or a terminal, asks it for a
 * route that does not exist, then stops it with a Ctrl-C (terminal) or SIGTERM (pipe).
 */
async function gatewayLogs(logFormat: string | undefined, terminal: boolean): Promise<Run> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MCP_HOST: '127.0.0.1',
    MCP_PORT: String(port),
    MCP_DATA_DIR: dataDir,
    TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
  };
  for (const name of ['LOG_FORMAT', 'FORCE_COLOR', 'NO_COLOR', 'MCP_AUTH_TOKENS', 'MCP_TOOLS_FILE'])
    delete env[name];
  if (logFormat !== undefined) env.LOG_FORMAT = logFormat;
  // A terminal emulator names itself; `script` passes on whatever this process has, maybe nothing.
  if (terminal) env.TERM = 'xterm-256color';
  const child = terminal
    ? // `exec`: script runs the command through $SHELL, or /bin/sh when SHELL is unset; a shell that
      // stayed in between would take the Ctrl-C itself and die of it.
      spawn('script', ['-qfec', `exec ${GATEWAY.map((arg) => `'${arg}'`).join(' ')}`, '/dev/null'], {
        cwd: ROOT,
        env,
      })
    : spawn(GATEWAY[0] as string, GATEWAY.slice(1), { cwd: ROOT, env });
  running.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString().replaceAll('\r', '');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString().replaceAll('\r', '');
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const fail = (err: Error) => {
    throw new Error(`${err.message}\n--- gateway output ---\n${output}`);
  };
  await eventually(
    async () => (output.includes('gateway: MCP on') ? true : undefined),
    30_000,
    'the gateway to listen',
    50,
  ).catch(fail);
  await (await fetch(`http://127.0.0.1:${port}/nowhere`)).text();
  await eventually(
    async () => (output.includes('/nowhere') ? true : undefined),
    5_000,
    'the request line',
    20,
  ).catch(fail);
  if (terminal) child.stdin?.write('\x03');
  else child.kill('SIGTERM');
  const [code] = await exited;
  return { output: output.replaceAll('^C', ''), code };
}

function assertJson({ output }: Run): void {
  const lines = output.split('\n').filter(Boolean);
  for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}\n${output}`);
  const messages = lines.map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string } });
  assert.ok(
    messages.some((m) => m.msg?.startsWith('gateway: MCP on')),
    output,
  );
  assert.ok(
    messages.some((m) => m.msg === 'incoming request' && m.req?.url === '/nowhere'),
    output,
  );
}

function assertPretty({ output }: Run, colours: boolean): void {
  const plain = output.replace(new RegExp(`${ESC}\\[\\d+m`, 'g'), '');
  const lines = plain.split('\n').filter(Boolean);
  for (const line of lines) assert.match(line, PRETTY_LINE, output);
  assert.ok(
    lines.some((line) => /INFO: gateway: MCP on http:\/\/127\.0\.0\.1:\d+\/mcp/.test(line)),
    output,
  );
  assert.equal(lines.filter((line) => line.includes('/nowhere')).length, 1, output);
  assert.ok(
    lines.some((line) => /INFO: GET \/nowhere \u2192 404 \d+ ms$/.test(line)),
    output,
  );
  assert.equal(output.includes(ESC), colours, `colours ${colours ? 'expected' : 'not expected'}:\n${output}`);
}

// Each test runs its own gateway on its own port: side by side.
describe('gateway log format', { concurrency: true }, () => {
  test('stdout a pipe: JSON lines', async () => {
    const run = await gatewayLogs(undefined, false);
    assertJson(run);
    assert.equal(run.code, 0, run.output);
  });

  test('LOG_FORMAT=pretty on a pipe: readable lines, no colours', async () => {
    const run = await gatewayLogs('pretty', false);
    assertPretty(run, false);
    assert.equal(run.code, 0, run.output);
  });

  test('stdout a terminal: readable lines with colours; Ctrl-C stops it', {
    skip: !HAS_SCRIPT && 'no util-linux script',
  }, async () => {
    const run = await gatewayLogs(undefined, true);
    assertPretty(run, true);
    assert.match(run.output, /gateway: SIGINT, shutting down/);
    assert.equal(run.code, 0, run.output);
  });

  test('LOG_FORMAT=json on a terminal: JSON lines', {
    skip: !HAS_SCRIPT && 'no util-linux script',
  }, async () => {
    const run = await gatewayLogs('json', true);
    assertJson(run);
  });

  test('an unknown LOG_FORMAT stops the start with its reason', () => {
    const result = spawnSync(GATEWAY[0] as string, GATEWAY.slice(1), {
      cwd: ROOT,
      env: { ...process.env, LOG_FORMAT: 'yaml', MCP_PORT: '0', MCP_DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 1, `${result.stdout}${result.stderr}`);
    assert.match(result.stderr, /gateway: cannot start: LOG_FORMAT must be "json" or "pretty", got "yaml"/);
  });
});
