// `npm run call` end to end against the real stack (dev server, worker process, gateway): the CLI
// as a child process, answering the approval prompt on its stdin, in both flows, and --resume; then
// catalog tools (test/fixtures/cli-catalog.yaml, a second gateway on the same worker) followed
// through their own companions, whatever the catalog names them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { calibrate, difficultyFor } from './support/gateway-difficulty.ts';
import type { TestGateway } from './support/gateway-server.ts';
import { rpcResult } from './support/mcp-http.ts';
import { delta, type Samples, scrape } from './support/metrics-scrape.ts';
import { startTestStack, type TestStack } from './support/stack.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI_CATALOG = fileURLToPath(new URL('./fixtures/cli-catalog.yaml', import.meta.url));
let stack: TestStack | undefined;
let gateway: TestGateway;
/** Serves the fixture catalog: mine_chain (companions by the naming rule) and mine_ledger (its own). */
let catalogGateway: TestGateway;
let slowDifficulty: number;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `input` on its stdin (piped, so not a TTY: plain progress lines). */
async function runCli(args: string[], input = '', url = gateway.url): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'client/cli.ts', ...args, '--url', url.href], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code, stdout, stderr };
}

before(async () => {
  stack = await startTestStack('cli-e2e');
  gateway = stack.gateway;
  catalogGateway = await stack.extraGateway({ env: { MCP_TOOLS_FILE: CLI_CATALOG } });
  slowDifficulty = difficultyFor(await calibrate(gateway.url), 0.5);
});

/** tools/call requests of `tool` between two scrapes, whatever their outcome. */
function callsOf(before: Samples, after: Samples, tool: string): number {
  return ['inline', 'task', 'input_required', 'start_poll', 'error']
    .map((outcome) => delta(before, after, 'mcp_gateway_tool_calls_total', { tool, outcome }))
    .reduce((sum, n) => sum + n, 0);
}

/** tasks/* requests of any method and outcome between two scrapes: none in the start/poll flow. */
function taskRequests(before: Samples, after: Samples): number {
  let total = 0;
  for (const [key, value] of after)
    if (key.startsWith('mcp_gateway_task_requests_total{')) total += value - (before.get(key) ?? 0);
  return total;
}

after(async () => {
  await stack?.close();
});

describe('npm run call', () => {
  test('Tasks flow: progress lines, the approval prompt answered on stdin, the published chain', async () => {
    const before = await scrape(gateway.origin);
    const run = await runCli(
      ['start_mining', '--difficulty', String(slowDifficulty), '--blocks', '6', '--require-approval'],
      'y\nfrom the terminal\n',
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /task mine-\S+ \(resume with --resume mine-/);
    assert.match(
      run.stderr,
      /task (mine-\S+) \(resume with --resume \1\)/,
      'a task resumes in the Tasks flow',
    );
    assert.match(run.stderr, /Publish the mined chain of 6 block\(s\)/);
    assert.match(run.stderr, /input_required/);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, 'completed');
    assert.equal(result.result.blocks.length, 6);
    assert.equal(result.result.publication.status, 'published');
    assert.equal(result.result.publication.approvedNote, 'from the terminal');
    // It followed the task by push: no tasks/get poll at all.
    const after = await scrape(gateway.origin);
    const gets = delta(before, after, 'mcp_gateway_task_requests_total', {
      method: 'tasks/get',
      outcome: 'ok',
    });
    assert.equal(gets, 0);
    assert.equal(
      delta(before, after, 'mcp_gateway_task_requests_total', { method: 'tasks/update', outcome: 'ok' }),
      1,
    );
  });

  test('start/poll flow (--no-tasks): a declined approval exits 1 with the reason', async () => {
    const run = await runCli(
      ['start_mining', '--difficulty', '6', '--blocks', '1', '--require-approval', '--no-tasks'],
      'n\n\n',
    );
    assert.equal(run.code, 1, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, 'completed');
    assert.match(result.message, /declined publishing/);
  });

  test('--resume picks up a task started elsewhere and follows it to the end', async () => {
    const created = await rpcResult(gateway.url, 'tools/call', {
      name: 'start_mining',
      arguments: { difficulty: slowDifficulty, blocks: 12 },
    });
    assert.equal(created.resultType, 'task');
    const run = await runCli(['--resume', String(created.taskId)]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /\d+ of 12 blocks done|blocks/);
    const result = JSON.parse(run.stdout);
    assert.equal(result.workflow_id, created.taskId);
    assert.equal(result.result.blocks.length, 12);
  });

  test('--json: progress during the wait from the first line, then the task, its views and the result', async () => {
    const run = await runCli([
      'start_mining',
      '--difficulty',
      String(slowDifficulty),
      '--blocks',
      '8',
      '--json',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const first = lines[0];
    assert.equal(first?.type, 'view');
    assert.deepEqual(first?.fraction, { progress: 0 }, 'the first line is the wait starting');
    const working = lines.filter((l) => l.type === 'view' && l.status === 'working');
    assert.ok(working.length >= 2, `progress while the call waited, then the task's: ${run.stdout}`);
    assert.ok(lines.some((l) => l.type === 'task'));
    const last = lines.at(-1);
    assert.equal(last?.type, 'result');
    assert.equal((last?.result as { status?: string } | undefined)?.status, 'completed');
    assert.equal(run.stderr, '', 'nothing for people on stderr in --json mode');
  });

  test('a bad argument fails with the gateway’s message naming the field', async () => {
    const run = await runCli(['start_mining', '--difficulty', '99', '--blocks', '1']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /error: .*difficulty/);
  });
});

describe('npm run call on catalog tools (any tool, its own companions)', () => {
  test('--no-tasks follows mine_chain to its end through get_mine_chain_result, with a progress bar', async () => {
    const before = await scrape(catalogGateway.origin);
    const run = await runCli(
      // Twelve blocks of about 0.5 s: for a given difficulty the chain is always the same, and six
      // were once short enough to finish inside the 1.5 s budget.
      ['mine_chain', '--difficulty', String(slowDifficulty), '--blocks', '12', '--data', 'cli', '--no-tasks'],
      '',
      catalogGateway.url,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /task (mine_chain-\S+) \(resume with --resume \1 --no-tasks --tool mine_chain\)/,
      'it did not finish inline: the run went on past the wait',
    );
    assert.match(run.stderr, /\[#*\.*\] \d+%/, 'the workflow contract’s progress/total as a bar');
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, 'completed');
    assert.equal(result.result.data, 'cli');
    assert.equal(result.result.blocks.length, 12);
    const after = await scrape(catalogGateway.origin);
    assert.ok(
      callsOf(before, after, 'get_mine_chain_result') >= 1,
      'polled with the tool’s result companion',
    );
    assert.equal(taskRequests(before, after), 0, 'no tasks/* request in the start/poll flow');
  });

  test('--no-tasks with companions of other names: the approval answered through approve_ledger', async () => {
    const before = await scrape(catalogGateway.origin);
    const run = await runCli(
      ['mine_ledger', '--difficulty', '6', '--blocks', '2', '--require-approval', '--no-tasks'],
      'y\nfrom the ledger\n',
      catalogGateway.url,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /Publish the mined chain of 2 block\(s\)/);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, 'completed');
    assert.equal(result.result.blocks.length, 2);
    assert.equal(result.result.publication.status, 'published');
    assert.equal(result.result.publication.approvedNote, 'from the ledger');
    const after = await scrape(catalogGateway.origin);
    assert.equal(callsOf(before, after, 'approve_ledger'), 1, 'answered once, with the respond companion');
    assert.ok(callsOf(before, after, 'ledger_status') >= 1, 'polled with the result companion');
    assert.equal(taskRequests(before, after), 0);
  });

  test('--resume --no-tasks: the id’s prefix picks mine_ledger among the start tools, followed to its end', async () => {
    const created = await rpcResult(catalogGateway.url, 'tools/call', {
      name: 'mine_ledger',
      arguments: { difficulty: slowDifficulty, blocks: 12 },
    });
    assert.equal(created.resultType, 'task');
    const taskId = String(created.taskId);
    const before = await scrape(catalogGateway.origin);
    const run = await runCli(['--resume', taskId, '--no-tasks'], '', catalogGateway.url);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, 'completed');
    assert.equal(result.workflow_id, taskId);
    assert.equal(result.result.blocks.length, 12);
    const after = await scrape(catalogGateway.origin);
    assert.ok(callsOf(before, after, 'ledger_status') >= 1);
    assert.equal(taskRequests(before, after), 0);
  });

  test('flags come from the tool’s schema: --help lists them, a wrong one is refused before anything starts', async () => {
    const help = await runCli(['mine_ledger', '--help'], '', catalogGateway.url);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stderr, /^mine_ledger$/m);
    assert.match(help.stderr, /--difficulty <integer> +\(required\)/);
    assert.match(help.stderr, /--require-approval/);
    const before = await scrape(catalogGateway.origin);
    const unknown = await runCli(
      ['mine_chain', '--difficulty', '6', '--colour', 'red'],
      '',
      catalogGateway.url,
    );
    assert.equal(unknown.code, 1);
    assert.match(
      unknown.stderr,
      /error: unknown flag --colour for mine_chain; its arguments: --difficulty <integer>, --blocks <integer>, --data <string>/,
    );
    const notANumber = await runCli(['mine_chain', '--difficulty', 'six'], '', catalogGateway.url);
    assert.equal(notANumber.code, 1);
    assert.match(notANumber.stderr, /error: --difficulty: expected an integer, got "six"/);
    const after = await scrape(catalogGateway.origin);
    assert.equal(callsOf(before, after, 'mine_chain'), 0, 'nothing was started');
  });
});
