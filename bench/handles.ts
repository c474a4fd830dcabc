// `npm run bench:handles`: what an agent that lost its handle, and a 2025-11-25 task client, wait
// for, on a stack of its own (Temporal dev server, the mining worker, one compiled gateway):
// - a `not_found` from the result companion for a garbled id (one character changed), with the
//   caller's recent runs listed and the id it most likely meant, one call per principal (a caller
//   gets one list a second: the rest are the plain answer);
// - `tasks/result` of a 2025-11-25 task (SEP-1686) after its run completed.
// Prints the table and puts the section into docs/benchmarks.md. BENCH_QUICK=1: prints only.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledGateway } from '../test/support/gateway-process.ts';
import { eventually, startOwnTestTemporal } from '../test/support/temporal.ts';
import { startGatewayProcess, startMiningWorker } from './stack.ts';
import { type Distribution, distribution, ms, timed } from './stats.ts';
import { withSection } from './tracing-report.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const HEADING = '## 14. Lost handles and 2025-11-25 tasks';
const QUEUE = 'bench-handles';
const principals = QUICK ? 10 : 40;
const resultCalls = QUICK ? 20 : 100;
const QUICK_RUN = { difficulty: 1, blocks: 1, data: 'bench-handles' };

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** One JSON-RPC call as a 2025-11-25 client sends it (no initialize: the gateway is stateless). */
async function legacyCall(url: URL, token: string, method: string, params: object) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  // A stream's last data line, or the JSON body itself.
  const data = text.includes('data: ') ? (text.split('data: ').at(-1) ?? '') : text;
  const answer = JSON.parse(data) as { result?: Record<string, unknown>; error?: { message: string } };
  if (!answer.result) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

const garbled = (id: string) => `${id.slice(0, -3)}${id.at(-3) === 'A' ? 'B' : 'A'}${id.slice(-2)}`;

async function measure(
  url: URL,
  tokens: string[],
  listed: (query: string) => Promise<number>,
): Promise<{ lost: Distribution; named: number; result: Distribution }> {
  const started = await Promise.all(
    tokens.map(async (token) => {
      const handle = await legacyCall(url, token, 'tools/call', {
        name: 'start_mining',
        arguments: QUICK_RUN,
      });
      return { token, id: String((handle.structuredContent as { workflow_id: string }).workflow_id) };
    }),
  );
  // Visibility lists a run a moment after its start: the lists are measured once it lists them all.
  await eventually(
    async () => ((await listed(`TaskQueue = '${QUEUE}'`)) >= tokens.length ? true : undefined),
    30_000,
    'visibility to list every run',
  );
  const lost: number[] = [];
  let named = 0;
  for (const { token, id } of started) {
    const answer = await timed(lost, () =>
      legacyCall(url, token, 'tools/call', {
        name: 'get_mining_result',
        arguments: { workflow_id: garbled(id) },
      }),
    );
    const json = answer.structuredContent as { did_you_mean?: string };
    if (json.did_you_mean === id) named++;
  }
  const [first] = started;
  if (!first) throw new Error('no principal');
  const task = await legacyCall(url, first.token, 'tools/call', {
    name: 'start_mining',
    arguments: QUICK_RUN,
    task: { ttl: 60_000 },
  });
  const taskId = String((task.task as { taskId: string }).taskId);
  await eventually(
    async () => {
      const status = String((await legacyCall(url, first.token, 'tasks/get', { taskId })).status);
      if (status === 'failed' || status === 'cancelled') throw new Error(`the task ${status}`);
      return status === 'completed' ? true : undefined;
    },
    30_000,
    'the task to complete',
  );
  const result: number[] = [];
  for (let i = 0; i < resultCalls; i++)
    await timed(result, () => legacyCall(url, first.token, 'tasks/result', { taskId }));
  return { lost: distribution(lost), named, result: distribution(result) };
}

function row(name: string, d: Distribution): string {
  return `| ${name} | ${d.n} | ${ms(d.p50)} | ${ms(d.p99)} | ${ms(d.mean)} | ${ms(d.max)} |`;
}

const temporal = await startOwnTestTemporal();
const dataDir = mkdtempSync(join(tmpdir(), 'bench-handles-'));
let figures: Awaited<ReturnType<typeof measure>>;
try {
  const worker = await startMiningWorker(temporal.server.address, QUEUE, dataDir);
  const tokens = Array.from({ length: principals }, (_, i) => `bench-handles-${i}-${'t'.repeat(20)}`);
  const gateway = await startGatewayProcess({
    temporalAddress: temporal.server.address,
    taskQueue: QUEUE,
    waitBudgetMs: 0,
    nodeArgs: await compiledGateway(),
    env: { MCP_AUTH_TOKENS: tokens.map((token, i) => `p${i}:${token}`).join(','), MCP_DATA_DIR: dataDir },
  });
  try {
    log(`lost handles: ${principals} principals, one garbled id each; tasks/result: ${resultCalls} calls`);
    figures = await measure(
      gateway.url,
      tokens,
      async (query) => (await temporal.client.workflow.count(query)).count,
    );
  } finally {
    await gateway.stop();
    await worker.stop();
  }
} finally {
  await temporal.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const section = [
  HEADING,
  '',
  'One compiled gateway, the mining worker, one call at a time (`npm run bench:handles`). A `not_found`',
  'of `get_mining_result` for an id with one character changed, each from a principal of its own with one',
  "run of the tool: the answer lists the caller's recent runs (a visibility query with its own 2 s",
  'deadline) and names the run it most likely meant. Then `tasks/result` of a 2025-11-25 task after',
  'its run completed (one describe and the result).',
  '',
  '|  | n | p50 | p99 | mean | max |',
  '|---|---|---|---|---|---|',
  row('`not_found` with the recent runs', figures.lost),
  row('`tasks/result` after completion', figures.result),
  '',
  `The garbled id's own run was named first (\`did_you_mean\`) in ${figures.named} of ${figures.lost.n} answers.`,
].join('\n');
process.stdout.write(`\n${section}\n`);
if (QUICK) log('quick run: docs/benchmarks.md left as it was');
else if (!existsSync(REPORT_PATH)) log(`${REPORT_PATH} is missing: run npm run bench first`);
else {
  writeFileSync(REPORT_PATH, withSection(readFileSync(REPORT_PATH, 'utf8'), HEADING, section));
  log(`wrote the lost-handle and 2025-11-25 task section into ${REPORT_PATH}`);
}
