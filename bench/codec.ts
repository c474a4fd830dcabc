// `npx tsx bench/codec.ts` (`npm run bench:codec`): what payload encryption costs a start and a poll,
// off and on side by side, on a stack of its own: a Temporal dev server, two workflows-only workers
// (one plain, one with the codec keys, each on its own queue: a worker reads what its gateway
// writes) and two compiled gateways, one without MCP_CODEC_KEYS and one with. `tools/call` (a task
// handle: arguments, memo and Web UI summary encrypted) and `tasks/get` (describe: the memo
// decrypted; the progress query: its argument encrypted by the gateway, its answer by the worker,
// both decrypted), one call at a time, the sides in rotating order on every round. Also the codec
// alone, in this process: encrypting and decrypting one payload of the sizes a tool moves. Prints
// the tables and puts the section into docs/benchmarks.md, leaving the rest as the last full run
// wrote it. BENCH_QUICK=1: fewer calls, prints only.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec } from '../common/payload-codec.ts';
import { compiledGateway } from '../test/support/gateway-process.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { createTask, getTask } from './overhead.ts';
import { LATENCY_HEADER, latencyRow, ratioRow, table } from './report-table.ts';
import { startGatewayProcess, startParkedWorker } from './stack.ts';
import { type Distribution, distribution, timed } from './stats.ts';
import { withSection } from './tracing-report.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const HEADING = '## 13. Payload encryption off vs on';
const calls = QUICK ? 60 : 300;
const warmup = QUICK ? 10 : 20;
const KEYS = { MCP_CODEC_KEYS: `bench=${randomBytes(32).toString('base64')}` };
const PAYLOAD_SIZES = [256, 16 * 1024, 1024 * 1024];

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

interface Side {
  create: Distribution;
  get: Distribution;
}

/** Milliseconds to encrypt, then decrypt, one JSON payload of about `bytes` (the codec alone). */
async function codecAlone(
  bytes: number,
  rounds: number,
): Promise<{ encode: Distribution; decode: Distribution }> {
  const codec = new EncryptionCodec({ current: 'bench', keys: new Map([['bench', randomBytes(32)]]) });
  const payload = defaultPayloadConverter.toPayload({ text: 'x'.repeat(bytes) });
  if (!payload) throw new Error('no payload');
  const encode: number[] = [];
  const decode: number[] = [];
  for (let i = 0; i < rounds + warmup; i++) {
    const t0 = performance.now();
    const [sealed] = await codec.encode([payload]);
    const t1 = performance.now();
    await codec.decode([sealed as typeof payload]);
    const t2 = performance.now();
    if (i >= warmup) {
      encode.push(t1 - t0);
      decode.push(t2 - t1);
    }
  }
  return { encode: distribution(encode), decode: distribution(decode) };
}

const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`;

const us = (value: number) => `${(value * 1000).toFixed(value < 1 ? 1 : 0)} µs`;
const microRow = (name: string, d: Distribution) => [name, d.n, us(d.p50), us(d.p99), us(d.mean), us(d.max)];

function codecSection(
  off: Side,
  on: Side,
  alone: { bytes: number; encode: Distribution; decode: Distribution }[],
) {
  return [
    HEADING,
    '',
    'Two compiled gateway processes (wait budget 0), each with a workflows-only worker on a queue of',
    'its own: one pair without `MCP_CODEC_KEYS`, one pair with (AES-256-GCM, one key). `tools/call`',
    'answers a task handle (the start: arguments, memo and Web UI summary encrypted); `tasks/get`',
    'describes the run (memo decrypted) and asks its progress (query argument and answer encrypted',
    'and decrypted). One call at a time, the sides in rotating order on every round.',
    '',
    table(LATENCY_HEADER, [
      latencyRow('`tools/call` → task, codec off', off.create),
      latencyRow('`tools/call` → task, codec on', on.create),
      latencyRow('`tasks/get`, codec off', off.get),
      latencyRow('`tasks/get`, codec on', on.get),
    ]),
    '',
    table(
      ['ratio', 'p50', 'p99'],
      [
        ratioRow('`tools/call`, on / off', on.create, off.create),
        ratioRow('`tasks/get`, on / off', on.get, off.get),
      ],
    ),
    '',
    'The codec alone (this process, one payload at a time: serialize, AES-256-GCM, and back):',
    '',
    table(
      ['', 'n', 'p50', 'p99', 'mean', 'max'],
      alone.flatMap((a) => [
        microRow(`encrypt a ${size(a.bytes)} JSON payload`, a.encode),
        microRow(`decrypt a ${size(a.bytes)} JSON payload`, a.decode),
      ]),
    ),
  ].join('\n');
}

const temporal = await startOwnTestTemporal();
const stops: (() => Promise<unknown>)[] = [];
let off: Side;
let on: Side;
try {
  const nodeArgs = await compiledGateway();
  const pair = async (queue: string, env: Record<string, string>) => {
    const worker = await startParkedWorker(temporal.server.address, queue, env);
    stops.unshift(() => worker.stop());
    const gateway = await startGatewayProcess({
      temporalAddress: temporal.server.address,
      taskQueue: queue,
      waitBudgetMs: 0,
      nodeArgs,
      env,
    });
    stops.unshift(() => gateway.stop());
    return gateway.url;
  };
  const offUrl = await pair('bench-codec-off', {});
  const onUrl = await pair('bench-codec-on', KEYS);
  const sides = [
    { url: offUrl, create: [] as number[], get: [] as number[], taskId: await createTask(offUrl) },
    { url: onUrl, create: [] as number[], get: [] as number[], taskId: await createTask(onUrl) },
  ];
  log(`codec: off vs on, tools/call and tasks/get, ${calls} calls per side after ${warmup}`);
  for (let round = 0; round < warmup + calls; round++) {
    const keep = round >= warmup;
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(round + k) % sides.length] as (typeof sides)[number];
      await timed(keep ? side.create : [], () => createTask(side.url));
      await timed(keep ? side.get : [], () => getTask(side.url, side.taskId));
    }
  }
  const [o, n] = sides as [(typeof sides)[number], (typeof sides)[number]];
  off = { create: distribution(o.create), get: distribution(o.get) };
  on = { create: distribution(n.create), get: distribution(n.get) };
} finally {
  for (const stop of stops) await stop().catch(() => {});
  await temporal.close();
}

const alone = [];
for (const bytes of PAYLOAD_SIZES)
  alone.push({ bytes, ...(await codecAlone(bytes, bytes > 100_000 ? 50 : calls)) });
const section = codecSection(off, on, alone);
process.stdout.write(`\n${section}\n`);
if (QUICK) log('quick run: docs/benchmarks.md left as it was');
else if (!existsSync(REPORT_PATH)) log(`${REPORT_PATH} is missing: run npm run bench first`);
else {
  writeFileSync(REPORT_PATH, withSection(readFileSync(REPORT_PATH, 'utf8'), HEADING, section));
  log(`wrote the payload encryption section into ${REPORT_PATH}`);
}
