// The sections of docs/benchmarks.md for the gateway overhead, the completion notice, the peer side
// by side, the scale run and push vs polling (bench/report.ts puts them together), and their summary
// rows.
import type { CompletionNoticeResult } from './completion-notice.ts';
import type { OverheadResult } from './overhead.ts';
import type { SideResult } from './peer-side-by-side.ts';
import type { PushResult } from './push.ts';
import { LATENCY_HEADER, latencyRow, type Row, ratioRow, table, verdict } from './report-table.ts';
import type { ScaleResult } from './scale.ts';
import { ms, ratio } from './stats.ts';

export function overheadSummaryRows(o: OverheadResult): Row[] {
  const rows: Row[] = [];
  for (const q of ['p50', 'p99'] as const) {
    const create = o.createViaGateway[q] / o.rawStart[q];
    rows.push([
      `tools/call → CreateTaskResult vs workflow.start, ${q}`,
      ratio(create),
      '≤ 1.25x',
      verdict(create <= 1.25),
    ]);
  }
  for (const q of ['p50', 'p99'] as const) {
    const get = o.getViaGateway[q] / o.rawDescribe[q];
    const target = q === 'p50' ? 1.15 : 1.25;
    rows.push([`tasks/get vs describe, ${q}`, ratio(get), `≤ ${target}x`, verdict(get <= target)]);
  }
  const { describe, query } = o.callsPerPoll;
  rows.push([
    'Temporal calls per tasks/get (describe + query)',
    `${(describe + query).toFixed(2)} (${describe.toFixed(2)} + ${query.toFixed(2)})`,
    '1',
    verdict(Math.abs(describe + query - 1) < 0.005),
  ]);
  const floor = o.bareProxyStart.p50 / o.rawStart.p50;
  rows.push(['floor: a bare HTTP proxy process vs workflow.start, p50', ratio(floor), '—', 'context']);
  return rows;
}

export const OVERHEAD_HEADING = '## 1. Gateway overhead over raw Temporal';

export function overheadSection(o: OverheadResult): string {
  return [
    OVERHEAD_HEADING,
    '',
    'One call at a time, the sides in rotating order on every round. The gateway runs as its own process,',
    'compiled and with its Node.js flags as the container runs it (wait budget 0, so `tools/call` answers',
    'with a task at once); the raw side is a Temporal client in the bench process, starting runs with the',
    "same memo, search attributes and Web UI text as the gateway's. The target compares the gateway with",
    'the Temporal calls a task handle and a poll stand for (a start; a describe: the mining run publishes',
    'its progress to its memo, so a poll asks no worker). The gateway counts its own Temporal calls: per',
    `\`tasks/get\`, ${o.callsPerPoll.describe.toFixed(2)} describe(s) and ${o.callsPerPoll.query.toFixed(2)} progress queries in this run.`,
    'Every other round, breakdown sides: a start followed by a describe (what a handle would cost if the',
    'gateway had to look the run up); the same start through a bare HTTP proxy process (bench/bare-proxy.ts:',
    'plain node:http, no MCP, no checks, no logging), the floor any gateway process pays for its hop; and',
    'a describe followed by the progress query: what a poll of a run that only answers the query costs.',
    'A clock on the raw side stops when Temporal answers; on the gateway side the answer still has to',
    'cross one more process while, on these same cores, the Temporal server and the worker take up the',
    'run just started (its first workflow task).',
    '',
    table(LATENCY_HEADER, [
      latencyRow('MCP `tools/call` → `CreateTaskResult` (HTTP)', o.createViaGateway),
      latencyRow('Temporal `workflow.start`', o.rawStart),
      latencyRow('HTTP → bare proxy process → `workflow.start`', o.bareProxyStart),
      latencyRow('Temporal `workflow.start` + `describe`', o.rawStartDescribe),
      latencyRow('MCP `tasks/get` (HTTP)', o.getViaGateway),
      latencyRow('Temporal `describe`', o.rawDescribe),
      latencyRow('Temporal `describe` + progress `query`', o.rawDescribeQuery),
    ]),
    '',
    table(
      ['ratio', 'p50', 'p99'],
      [
        ratioRow('tools/call / workflow.start', o.createViaGateway, o.rawStart),
        ratioRow('bare proxy / workflow.start (the process hop)', o.bareProxyStart, o.rawStart),
        ratioRow(
          'tools/call / bare proxy (MCP and the gateway itself)',
          o.createViaGateway,
          o.bareProxyStart,
        ),
        ratioRow('tools/call / (start + describe)', o.createViaGateway, o.rawStartDescribe),
        ratioRow('tasks/get / describe', o.getViaGateway, o.rawDescribe),
        ratioRow('tasks/get / (describe + query)', o.getViaGateway, o.rawDescribeQuery),
      ],
    ),
  ].join('\n');
}

export type PeerResult = { sides: SideResult[] } | { unavailable: string };

export function peerSummaryRows(peer: PeerResult): Row[] {
  if ('unavailable' in peer) {
    return [['tasks/get throughput vs fastmcp-tasks', 'not measured', 'side by side', peer.unavailable]];
  }
  const [gateway, other] = peer.sides;
  if (!gateway || !other) return [];
  return [
    [
      `tasks/get throughput, 100 running tasks: gateway / ${other.name}`,
      ratio(gateway.getsPerSecond / other.getsPerSecond),
      'side by side',
      '—',
    ],
  ];
}

export function scaleSummaryRows(scales: ScaleResult[]): Row[] {
  const rows: Row[] = [];
  for (const [i, scale] of scales.entries()) {
    const errors = scale.phases.reduce((n, p) => n + p.errors, 0);
    const peak = Math.max(scale.rss.peakSampledMb, scale.rss.highWaterMb);
    const how = i === 0 ? '' : `, ${scale.variant}`;
    rows.push([`${scale.tasks} running tasks: errors${how}`, errors, '0', verdict(errors === 0)]);
    rows.push([`peak gateway RSS${how}`, `${peak.toFixed(0)} MB`, '≤ 150 MB', verdict(peak <= 150)]);
  }
  return rows;
}

export const NOTICE_HEADING = '## 2. Completion notice';

export function noticeSection(n: CompletionNoticeResult): string {
  return [
    NOTICE_HEADING,
    '',
    'Short chains (difficulty 8 to 16, 1 to 3 blocks) through `start_mining` on the mining worker, wait',
    "budget 30 s: the inline answer's arrival at the client minus the run's `closeTime` from describe.",
    '',
    table(LATENCY_HEADER, [
      latencyRow('answer arrival − workflow close time', n.notice),
      latencyRow('whole `tools/call` round trip', n.roundTrip),
    ]),
  ].join('\n');
}

export const PEER_HEADING = '## 3. A peer side by side';

export function peerSection(peer: PeerResult): string {
  const head = [PEER_HEADING, ''];
  if ('unavailable' in peer) return [...head, `Not measured: ${peer.unavailable}`].join('\n');
  const [gateway, other] = peer.sides;
  return [
    ...head,
    'Each server holds 100 running tasks of an equivalent tool (this gateway: mining runs parked on a',
    'workflows-only worker; the peer: a task tool awaiting a long sleep), created with the same',
    '`tools/call` requests side by side. Then the same closed-loop `tasks/get` load on each, windows',
    'alternating.',
    '',
    table(
      [
        'server',
        'tasks/get per s',
        'tasks/get p50',
        'tasks/get p99',
        'errors',
        'creation p50',
        'creation p99',
      ],
      peer.sides.map((s) => [
        s.name,
        s.getsPerSecond.toFixed(0),
        ms(s.getLatency.p50),
        ms(s.getLatency.p99),
        s.errors,
        ms(s.creation.p50),
        ms(s.creation.p99),
      ]),
    ),
    '',
    gateway && other
      ? `Throughput ratio gateway / peer: **${ratio(gateway.getsPerSecond / other.getsPerSecond)}**; creation p50 ratio: ${ratio(gateway.creation.p50 / other.creation.p50)}.`
      : '',
    ...peer.sides.filter((s) => s.firstError).map((s) => `First error from ${s.name}: \`${s.firstError}\``),
  ].join('\n');
}

function scaleSection(s: ScaleResult): string {
  return [
    `### ${s.variant}`,
    '',
    '',
    table(
      ['phase', 'requests', 'errors', 'seconds', 'p50', 'p99'],
      s.phases.map((p) => [
        p.name,
        p.requests,
        p.errors,
        p.seconds.toFixed(1),
        ms(p.latency.p50),
        ms(p.latency.p99),
      ]),
    ),
    '',
    `Gateway RSS: ${s.rss.startMb.toFixed(0)} MB before, peak ${s.rss.peakSampledMb.toFixed(0)} MB sampled ` +
      `(VmHWM ${s.rss.highWaterMb.toFixed(0)} MB over the process's life), ${s.rss.endMb.toFixed(0)} MB after.`,
    ...s.phases.filter((p) => p.firstError).map((p) => `First error in ${p.name}: \`${p.firstError}\``),
  ].join('\n');
}

export const SCALE_HEADING = '## 4. Scale';

export function scaleSections(scales: ScaleResult[]): string {
  const first = scales[0];
  if (!first) return SCALE_HEADING;
  return [
    `${SCALE_HEADING}: ${first.tasks} running tasks`,
    '',
    `The gateway as its own process (a fresh one per variant, wait budget 1 s), ${first.inFlight} requests`,
    'in flight. Every task is created with `tools/call` and polled with `tasks/get` while all of them',
    'run; the first variant then cancels every one with `tasks/cancel`. RSS from /proc/<pid>/status.',
    ...scales.flatMap((scale) => ['', scaleSection(scale)]),
  ].join('\n');
}

export function pushSummaryRows(p: PushResult): Row[] {
  const left = p.subscriptions.leftOpen;
  return [
    [
      'completion notice by push (notification − close time), p99',
      ms(p.push.p99),
      '≤ 100 ms',
      verdict(p.push.p99 <= 100),
    ],
    [`completion notice by polling every ${p.pollIntervalMs} ms, p99`, ms(p.poll.p99), 'side by side', '—'],
    [
      `${p.subscriptions.count} open subscriptions: gateway RSS`,
      `${p.subscriptions.rssOpenMb.toFixed(0)} MB`,
      'side by side',
      '—',
    ],
    [
      `${p.subscriptions.count} subscriptions closed: streams and long polls left open`,
      left.watches + left.subscriptions,
      '0',
      verdict(left.watches + left.subscriptions === 0),
    ],
  ];
}

export const PUSH_HEADING = '## 7. Push vs polling';

export function pushSection(p: PushResult): string {
  const s = p.subscriptions;
  return [
    PUSH_HEADING,
    '',
    'One gateway process (compiled, wait budget 0, so every call is a task), short chains (difficulty 14,',
    '2 blocks) on the mining worker. Each round follows one task by push (`subscriptions/listen`) and one',
    `by \`tasks/get\` at the advertised interval (${p.pollIntervalMs} ms), in rotating order. The notice is the`,
    "arrival of the completed status minus the run's close time; Temporal calls are the gateway's own",
    '(describe, query, result long poll), from its /metrics, per completed task.',
    '',
    table(LATENCY_HEADER, [
      latencyRow('push: notifications/tasks completed − close time', p.push),
      latencyRow(`poll: tasks/get every ${p.pollIntervalMs} ms, completed − close time`, p.poll),
    ]),
    '',
    table(
      ['', 'push', 'poll'],
      [['Temporal calls per completed task', p.callsPerTask.push.toFixed(1), p.callsPerTask.poll.toFixed(1)]],
    ),
    '',
    `Then ${s.count} subscriptions open at once on the parked gateway, one running task each: RSS`,
    `${s.rssBeforeMb.toFixed(0)} MB before, ${s.rssOpenMb.toFixed(0)} MB with all open, ${s.rssAfterMb.toFixed(0)} MB`,
    `after they closed; left open afterwards: ${s.leftOpen.subscriptions} streams, ${s.leftOpen.watches} Temporal long polls.`,
  ].join('\n');
}
