// Waits that Temporal wakes: what a push watch on a task waiting for a person costs Temporal (the
// Temporal calls the gateway made, from its own metrics, per watched task per minute), and how soon
// the input a run asks for reaches a client holding a subscriptions/listen stream (the
// notifications/tasks `input_required` arrival − the run's memo upsert that asked, in its history).
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { calibrate, difficultyFor } from '../test/support/gateway-difficulty.ts';
import { rpcResult } from '../test/support/mcp-http.ts';
import { delta, type Samples, scrape } from '../test/support/metrics-scrape.ts';
import { type ListenStream, listen } from '../test/support/sse-listen.ts';
import { inputPublishedAt } from '../test/support/temporal-requests.ts';
import { inLanes } from './lanes.ts';
import { LATENCY_HEADER, latencyRow, type Row, table, verdict } from './report-table.ts';
import { type Distribution, distribution, ms } from './stats.ts';

export const WAITS_HEADING = '## 15. Waits that Temporal wakes';

/** Every Temporal call a gateway times (gateway/shared/metrics.ts), but starts. */
const OPERATIONS = ['describe', 'query', 'result-wait', 'history-wait', 'signal', 'cancel', 'terminate'];

/** A chain that asks for approval at once: its run then waits for a person. */
const ASKING = { difficulty: 4, blocks: 1, require_approval: true };

/** The target: an idle wait costs Temporal at most one request per 10 s. */
const MAX_PER_MINUTE = 6;
/** The target: input reaches the client within 250 ms of the run's change, p99. */
const MAX_INPUT_P99_MS = 250;

export interface WaitsResult {
  /** Push watches held at once on tasks waiting for a person, and for how long. */
  watched: number;
  seconds: number;
  /** Temporal calls the gateway made over that time. */
  requests: number;
  requestsPerTaskPerMinute: number;
  /** notifications/tasks `input_required` arrival − the memo upsert that asked. */
  inputLatency: Distribution;
  /** Rounds whose run asked before its stream was open (not a wait: left out). */
  askedBeforeWatch: number;
}

function temporalCalls(before: Samples, after: Samples): number {
  let calls = 0;
  for (const operation of OPERATIONS)
    for (const outcome of ['ok', 'error', 'aborted'])
      calls += delta(before, after, 'mcp_gateway_temporal_request_duration_seconds_count', {
        operation,
        outcome,
      });
  return calls;
}

async function startTask(url: URL, args: Record<string, unknown>): Promise<string> {
  const created = await rpcResult(url, 'tools/call', { name: 'start_mining', arguments: args });
  if (created.resultType !== 'task') throw new Error(`expected a task, got ${JSON.stringify(created)}`);
  return String(created.taskId);
}

/** The next task status the stream pushes, and when it came. */
async function nextStatus(stream: ListenStream): Promise<{ status: string; at: number }> {
  for (;;) {
    const message = await stream.next(60_000);
    if (!message) throw new Error('the stream ended before the task asked for input');
    const status = (message.params as { status?: string } | undefined)?.status;
    if (message.method === 'notifications/tasks' && status) return { status, at: Date.now() };
  }
}

async function untilAsking(stream: ListenStream): Promise<number> {
  for (;;) {
    const { status, at } = await nextStatus(stream);
    if (status === 'input_required') return at;
  }
}

/** `watched` tasks waiting for a person, each on a stream of its own, over `idleMs`. */
async function idleCost(url: URL, watched: number, idleMs: number) {
  const ids = await inLanes(watched, 5, (i) => startTask(url, { ...ASKING, data: `waits-idle-${i}` }));
  const streams = await Promise.all(ids.map((taskId) => listen(url, { taskIds: [taskId] })));
  await Promise.all(streams.map(untilAsking));
  const before = await scrape(url.origin);
  const began = performance.now();
  await delay(idleMs); // the measured window itself
  const after = await scrape(url.origin);
  const seconds = (performance.now() - began) / 1000;
  for (const stream of streams) stream.close();
  for (const taskId of ids) await rpcResult(url, 'tasks/cancel', { taskId });
  return { seconds, requests: temporalCalls(before, after) };
}

/** Rounds of a run that asks after about half a second of mining, watched on a stream from its start. */
async function inputLatency(url: URL, client: Client, rounds: number) {
  const difficulty = difficultyFor(await calibrate(url), 0.5);
  const samples: number[] = [];
  let askedBeforeWatch = 0;
  for (let round = 0; round < rounds; round++) {
    const taskId = await startTask(url, { ...ASKING, difficulty, data: `waits-input-${round}` });
    const stream = await listen(url, { taskIds: [taskId] });
    try {
      const first = await nextStatus(stream);
      const arrived = first.status === 'input_required' ? first.at : await untilAsking(stream);
      const asked = await inputPublishedAt(client.workflow.getHandle(taskId));
      if (asked === undefined) throw new Error(`task ${taskId} published no input request`);
      if (first.status === 'input_required') askedBeforeWatch++;
      else samples.push(arrived - asked);
    } finally {
      stream.close();
      await rpcResult(url, 'tasks/cancel', { taskId });
    }
  }
  return { latency: distribution(samples), askedBeforeWatch };
}

/** Both measures on one gateway (wait budget 0, the mining worker; task id = workflow id). */
export async function measureWaits(options: {
  url: URL;
  client: Client;
  watched: number;
  idleMs: number;
  rounds: number;
}): Promise<WaitsResult> {
  const idle = await idleCost(options.url, options.watched, options.idleMs);
  const input = await inputLatency(options.url, options.client, options.rounds);
  return {
    watched: options.watched,
    seconds: idle.seconds,
    requests: idle.requests,
    requestsPerTaskPerMinute: idle.requests / options.watched / (idle.seconds / 60),
    inputLatency: input.latency,
    askedBeforeWatch: input.askedBeforeWatch,
  };
}

export function waitsSummaryRows(w: WaitsResult): Row[] {
  const perMinute = w.requestsPerTaskPerMinute;
  return [
    [
      'a push watch on a task waiting for a person: Temporal requests per minute',
      perMinute.toFixed(1),
      `≤ ${MAX_PER_MINUTE} (1 per 10 s)`,
      verdict(perMinute <= MAX_PER_MINUTE),
    ],
    [
      'input asked by a run → the watching client, p99',
      ms(w.inputLatency.p99),
      `≤ ${MAX_INPUT_P99_MS} ms`,
      verdict(w.inputLatency.p99 <= MAX_INPUT_P99_MS),
    ],
  ];
}

/** `before`: the same measure of an earlier gateway, when one was run side by side. */
export function waitsSection(w: WaitsResult, before?: { label: string; result: WaitsResult }): string {
  const costRow = (label: string, r: WaitsResult): Row => [
    label,
    r.watched,
    `${r.seconds.toFixed(0)} s`,
    r.requests,
    r.requestsPerTaskPerMinute.toFixed(1),
  ];
  return [
    WAITS_HEADING,
    '',
    'One compiled gateway (wait budget 0) and the mining worker. A run waiting for a person is watched',
    'on a `subscriptions/listen` stream of its own; the Temporal calls the gateway made meanwhile come',
    "from its own metrics (every operation but starts). A wait follows the run's history long poll",
    '(about one request per 20 s while nothing happens) and looks at the run only when it changes.',
    'Before, a push watch described the run every `MCP_POLL_INTERVAL_MS` (2 s by default: about 30',
    'requests per watched task per minute; at the 500 ms the tests run with, about 120) and saw input',
    'only at its next look.',
    '',
    table(
      ['', 'watched tasks', 'over', 'Temporal requests', 'per watched task per minute'],
      [...(before ? [costRow(before.label, before.result)] : []), costRow('this gateway', w)],
    ),
    '',
    'Input asked by a run (its memo upsert, as its history times it) to the notifications/tasks',
    `\`input_required\` on a stream opened while it mined (${w.askedBeforeWatch} round(s) asked before`,
    'the stream was open and are left out):',
    '',
    table(LATENCY_HEADER, [
      ...(before ? [latencyRow(`input request → client, ${before.label}`, before.result.inputLatency)] : []),
      latencyRow('input request → client, this gateway', w.inputLatency),
    ]),
  ].join('\n');
}
