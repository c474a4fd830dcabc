// `npm run call` end to end against the real stack (dev server, worker process, gateway): the CLI
// as a child process, answering the approval prompt on its stdin, in both flows, and --resume.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { calibrate, difficultyFor } from './support/gateway-difficulty.ts';
import type { TestGateway } from './support/gateway-server.ts';
import { rpcResult } from './support/mcp-http.ts';
import { delta, scrape } from './support/metrics-scrape.ts';
import { startTestStack, type TestStack } from './support/stack.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let stack: TestStack | undefined;
let gateway: TestGateway;
let slowDifficulty: number;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `input` on its stdin (piped, so not a TTY: plain progress lines). */
async function runCli(args: string[], input = ''): Promise<CliRun> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'client/cli.ts', ...args, '--url', gateway.url.href],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
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
  slowDifficulty = difficultyFor(await calibrate(gateway.url), 0.5);
});

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
