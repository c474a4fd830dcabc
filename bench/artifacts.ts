// `npx tsx bench/artifacts.ts` (`npm run bench:artifacts`): what a large result costs every poll,
// inline against an artifact reference, on a stack of its own: a Temporal dev server, a worker
// running the artifact fixture workflows (test/fixtures/workflows/artifacts.ts, the local store)
// and the gateway. For each shape, one completed 1 MiB result polled over and over: the bytes of one
// tasks/get answer and of one result-companion answer on the wire, and their latency; then
// resources/read of a 20 MiB artifact. Prints the section and puts it into docs/benchmarks.md,
// leaving the rest as the last full run wrote it. BENCH_QUICK=1: prints only.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { LocalArtifactStore } from '../common/local-artifact-store.ts';
import { artifactActivities } from '../test/fixtures/activities/artifacts.ts';
import { compiledGateway } from '../test/support/gateway-process.ts';
import { startGateway, type TestGateway } from '../test/support/gateway-server.ts';
import { framedHeaders, framedRequest, PLAIN_CLIENT, TASKS_CLIENT } from '../test/support/mcp-http.ts';
import { eventually, startOwnTestTemporal } from '../test/support/temporal.ts';
import { LATENCY_HEADER, latencyRow, table } from './report-table.ts';
import { type RssReport, RssSampler } from './rss-sampler.ts';
import { startGatewayProcess } from './stack.ts';
import { type Distribution, distribution, timed } from './stats.ts';
import { withSection } from './tracing-report.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const WORKFLOWS = fileURLToPath(new URL('../test/fixtures/workflows/artifacts.ts', import.meta.url));
const CATALOG = fileURLToPath(new URL('../test/fixtures/artifacts-catalog.yaml', import.meta.url));
const HEADING = '## 11. Large results: inline vs artifact';
const MIB = 1024 * 1024;
const polls = QUICK ? 10 : 50;
const reads = QUICK ? 3 : 10;

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** One request's answer: its bytes on the wire (the body as sent) and its parsed result. */
async function post(gateway: { url: URL }, method: string, params: Record<string, unknown>, plain = false) {
  const framing = plain ? PLAIN_CLIENT : TASKS_CLIENT;
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: framedHeaders(method, params),
    body: JSON.stringify(framedRequest(method, params, framing)),
  });
  const body = Buffer.from(await response.arrayBuffer());
  const message = JSON.parse(body.toString('utf8')) as { result?: Record<string, unknown> };
  if (!message.result) throw new Error(`${method} answered ${body.toString('utf8').slice(0, 300)}`);
  return { bytes: body.length, result: message.result };
}

interface Shape {
  name: string;
  tasksGetBytes: number;
  companionBytes: number;
  tasksGet: Distribution;
  companion: Distribution;
}

async function measure(gateway: TestGateway, name: string, tool: string, args: object): Promise<Shape> {
  const created = await post(gateway, 'tools/call', { name: tool, arguments: args });
  const taskId = String(created.result.taskId);
  await eventually(
    async () =>
      (await post(gateway, 'tasks/get', { taskId })).result.status === 'completed' ? true : undefined,
    60_000,
    `${name} to complete`,
  );
  const companionParams = { name: `get_${tool}_result`, arguments: { workflow_id: taskId } };
  let tasksGetBytes = 0;
  let companionBytes = 0;
  const getSamples: number[] = [];
  const companionSamples: number[] = [];
  for (let i = 0; i < polls; i++) {
    tasksGetBytes = (await timed(getSamples, () => post(gateway, 'tasks/get', { taskId }))).bytes;
    companionBytes = (await timed(companionSamples, () => post(gateway, 'tools/call', companionParams, true)))
      .bytes;
  }
  return {
    name,
    tasksGetBytes,
    companionBytes,
    tasksGet: distribution(getSamples),
    companion: distribution(companionSamples),
  };
}

function section(inline: Shape, reference: Shape, read: Distribution, rss: RssReport): string {
  const kb = (bytes: number) => `${bytes.toLocaleString('en-US')} bytes`;
  return [
    HEADING,
    '',
    'One completed run with a 1 MiB result, polled by one client at a time: returned inline',
    '(`inline_blob`, a string of 1 MiB) and kept in the local artifact store with the reference returned',
    "(`write_report`, 1 MiB of bytes). Bytes are one answer's HTTP body; an inline result is in it twice",
    "(text and `structuredContent`), a reference's answer carries the reference, a `resource_link` and",
    'where to read it. Then `resources/read` of a 20 MiB artifact (base64 in the answer).',
    '',
    table(
      ['', 'tasks/get answer', 'result companion answer'],
      [
        ['1 MiB result inline', kb(inline.tasksGetBytes), kb(inline.companionBytes)],
        ['1 MiB result as an artifact', kb(reference.tasksGetBytes), kb(reference.companionBytes)],
      ],
    ),
    '',
    table(LATENCY_HEADER, [
      latencyRow('`tasks/get`, inline', inline.tasksGet),
      latencyRow('`tasks/get`, artifact', reference.tasksGet),
      latencyRow('result companion, inline', inline.companion),
      latencyRow('result companion, artifact', reference.companion),
      latencyRow('`resources/read`, 20 MiB', read),
    ]),
    '',
    `The reads went to a compiled gateway process of their own (\`dist/gateway.mjs\`). Its resident memory`,
    `during the first read (VmRSS every 50 ms): ${rss.startMb.toFixed(0)} MB before, ${rss.peakSampledMb.toFixed(0)} MB at the peak, so one 20 MiB read`,
    `costs about ${(rss.peakSampledMb - rss.startMb).toFixed(0)} MB at its peak: the bytes, their base64, the JSON-RPC answer the SDK`,
    'builds and checks, and its buffer on the way out.',
  ].join('\n');
}

const temporal = await startOwnTestTemporal();
const dir = mkdtempSync(join(tmpdir(), 'bench-artifacts-'));
let report: string;
try {
  const connection = await NativeConnection.connect({ address: temporal.server.address });
  const worker = await Worker.create({
    connection,
    taskQueue: 'fixture-artifacts',
    workflowsPath: WORKFLOWS,
    activities: artifactActivities(new LocalArtifactStore(dir)),
  });
  const running = worker.run();
  const gateway = await startGateway({
    temporalAddress: temporal.server.address,
    taskQueue: 'not-used-by-the-catalog',
    env: {
      MCP_TOOLS_FILE: CATALOG,
      MCP_ARTIFACT_DIR: dir,
      MCP_CLIENT_WAIT_BUDGETS: `${TASKS_CLIENT.clientInfo.name}=0`,
    },
  });
  try {
    log(`large results: ${polls} polls of each shape`);
    const inline = await measure(gateway, 'inline', 'inline_blob', { bytes: MIB });
    const reference = await measure(gateway, 'artifact', 'write_report', { bytes: MIB, seed: 9 });
    const reading = await readTimes(temporal.server.address, dir);
    report = section(inline, reference, reading.read, reading.rss);
  } finally {
    await gateway.close();
    worker.shutdown();
    await running;
    await connection.close();
  }
} finally {
  await temporal.close();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * resources/read of one 20 MiB artifact, `reads` times, through a compiled gateway process of its
 * own whose resident memory is sampled meanwhile.
 */
async function readTimes(
  temporalAddress: string,
  folder: string,
): Promise<{ read: Distribution; rss: RssReport }> {
  const gateway = await startGatewayProcess({
    temporalAddress,
    taskQueue: 'not-used-by-the-catalog',
    waitBudgetMs: 0,
    nodeArgs: await compiledGateway(),
    env: {
      MCP_TOOLS_FILE: CATALOG,
      MCP_ARTIFACT_DIR: folder,
      MCP_CLIENT_WAIT_BUDGETS: `${TASKS_CLIENT.clientInfo.name}=0`,
    },
  });
  try {
    const created = await post(gateway, 'tools/call', {
      name: 'write_report',
      arguments: { bytes: 20 * MIB, seed: 6 },
    });
    const taskId = String(created.result.taskId);
    const done = await eventually(
      async () => {
        const task = (await post(gateway, 'tasks/get', { taskId })).result;
        return task.status === 'completed' ? task : undefined;
      },
      60_000,
      'the 20 MiB artifact',
    );
    const content = (done.result as { content: { type: string; uri?: string }[] }).content;
    const uri = String(content.find((block) => block.type === 'resource_link')?.uri);
    // Memory: the first read alone (later ones add garbage not yet collected to the picture).
    const samples: number[] = [];
    const sampler = new RssSampler(gateway.child.pid as number);
    await timed(samples, () => post(gateway, 'resources/read', { uri }));
    const rss = sampler.stop();
    for (let i = 1; i < reads; i++) await timed(samples, () => post(gateway, 'resources/read', { uri }));
    return { read: distribution(samples), rss };
  } finally {
    await gateway.stop();
  }
}

process.stdout.write(`\n${report}\n`);
if (QUICK) log('quick run: docs/benchmarks.md left as it was');
else if (!existsSync(REPORT_PATH)) log(`${REPORT_PATH} is missing: run npm run bench first`);
else {
  writeFileSync(REPORT_PATH, withSection(readFileSync(REPORT_PATH, 'utf8'), HEADING, report));
  log(`wrote the large-results section into ${REPORT_PATH}`);
}
