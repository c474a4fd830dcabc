// The bench run's results as Markdown: a summary of ratios against the targets, then the figures
// behind each part, written to docs/benchmarks.md after every part (bench/run.ts). A part not run
// yet is marked pending; a part that threw says so, with its error, and the rest is kept.
import type { CompletionNoticeResult } from './completion-notice.ts';
import { WAITS_HEADING, type WaitsResult, waitsSection, waitsSummaryRows } from './idle-waits.ts';
import { LIMITS_HEADING, type LimitsResult, limitsSection } from './limits.ts';
import { type LoadResult, type LoadSettings, loadProblems, renderLoad } from './load-outcomes.ts';
import { type Machine, machineLine } from './machine.ts';
import { NOISY_HEADING, type NoisyResult, noisySection } from './noisy.ts';
import type { OAuthSideResult } from './oauth-side-by-side.ts';
import type { OverheadResult } from './overhead.ts';
import type { PushResult } from './push.ts';
import { numberSections } from './report-file.ts';
import {
  NOTICE_HEADING,
  noticeSection,
  OVERHEAD_HEADING,
  overheadSection,
  overheadSummaryRows,
  PEER_HEADING,
  type PeerResult,
  PUSH_HEADING,
  peerSection,
  peerSummaryRows,
  pushSection,
  pushSummaryRows,
  SCALE_HEADING,
  scaleSections,
  scaleSummaryRows,
} from './report-parts.ts';
import { LATENCY_HEADER, latencyRow, type Row, ratioRow, table, verdict } from './report-table.ts';
import type { ScaleResult } from './scale.ts';
import { ms, ratio } from './stats.ts';
import { TRACING_HEADING, tracingSection, withSection } from './tracing-report.ts';
import type { TracingSideResult } from './tracing-side-by-side.ts';

export interface BenchResults {
  machine: Machine;
  settings: Record<string, string | number>;
  overhead?: OverheadResult;
  notice?: CompletionNoticeResult;
  peer?: PeerResult;
  scale?: ScaleResult[];
  push?: PushResult;
  waits?: WaitsResult;
  miner?: { output: string } | { unavailable: string };
  load?: { options: LoadSettings; result: LoadResult };
  oauth?: OAuthSideResult;
  tracing?: TracingSideResult;
  limits?: LimitsResult;
  noisy?: NoisyResult;
  /** The parts this run measures (BENCH_PARTS); every part when absent. The others get no section here. */
  measured?: PartKey[];
  /** Parts that threw, with the error: their sections say so (with what they measured before it). */
  failed?: Partial<Record<PartKey, string>>;
  /** Set once the run is over; until then the report is a partial one. */
  seconds?: number;
  /** The signal that stopped the run before its end, if one did. */
  stoppedBy?: string;
}

export type PartKey =
  | 'overhead'
  | 'notice'
  | 'peer'
  | 'scale'
  | 'miner'
  | 'load'
  | 'push'
  | 'waits'
  | 'oauth'
  | 'tracing'
  | 'limits'
  | 'noisy';

function summaryRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  if (r.overhead) rows.push(...overheadSummaryRows(r.overhead));
  if (r.notice) {
    const p99 = r.notice.notice.p99;
    rows.push(['completion notice (answer − close time), p99', ms(p99), '≤ 100 ms', verdict(p99 <= 100)]);
  }
  if (r.peer) rows.push(...peerSummaryRows(r.peer));
  if (r.push) rows.push(...pushSummaryRows(r.push));
  if (r.waits) rows.push(...waitsSummaryRows(r.waits));
  if (r.oauth) rows.push(...oauthSummaryRows(r.oauth));
  rows.push(...scaleSummaryRows(r.scale ?? []));
  if (r.load) rows.push(loadSummaryRow(r.load.options, r.load.result));
  return [...rows, ...partStatusRows(r)];
}

function loadSummaryRow(options: LoadSettings, result: LoadResult): Row {
  const problems = loadProblems(result);
  return [
    `load, ${options.tasks} tasks from ${options.clients} clients: lost, ended otherwise, 5xx, temporal_unavailable`,
    problems.length === 0 ? 'none' : problems.join('; '),
    'none',
    verdict(problems.length === 0),
  ];
}

const OAUTH_TARGET = 1.05;

function oauthSummaryRows(o: OAuthSideResult): Row[] {
  const rows: Row[] = (['p50', 'p99'] as const).map((q) => {
    const value = o.oauthGet[q] / o.staticGet[q];
    return [
      `tasks/get, OAuth access token vs static token, ${q}`,
      ratio(value),
      `≤ ${OAUTH_TARGET.toFixed(2)}x`,
      verdict(value <= OAUTH_TARGET),
    ];
  });
  rows.push([
    'tasks/get, OAuth access token vs static token, p50, a token not seen before on every call',
    ratio(o.freshTokenGet.p50 / o.staticGet.p50),
    '—',
    'context',
  ]);
  return rows;
}

const OAUTH_HEADING = '## 8. OAuth access token vs static token';

export function oauthSection(o: OAuthSideResult): string {
  return [
    OAUTH_HEADING,
    '',
    'One gateway process (compiled, wait budget 0) with static tokens and OAuth both configured; the',
    "static principal is named like the token's subject, so every side polls the same parked task as the",
    'same principal. `tasks/get` one call at a time, the sides in rotating order on every round: the',
    'static token; one access token for every call, as a client uses it until it expires (checked in',
    'full once, then remembered for up to 60 s); a token the gateway has not seen before on every call',
    `(signature with the cached key, issuer, audience, expiry, scopes). Tokens: ${o.token}.`,
    '',
    table(LATENCY_HEADER, [
      latencyRow('`tasks/get` with the static token', o.staticGet),
      latencyRow('`tasks/get` with one OAuth access token', o.oauthGet),
      latencyRow('`tasks/get` with a new OAuth access token each call', o.freshTokenGet),
    ]),
    '',
    table(
      ['ratio', 'p50', 'p99'],
      [
        ratioRow('one access token / static token', o.oauthGet, o.staticGet),
        ratioRow('a new access token each call / static token', o.freshTokenGet, o.staticGet),
      ],
    ),
  ].join('\n');
}

/**
 * A report with the OAuth section (and its summary rows) put in, replacing earlier ones: for the
 * OAuth step run on its own (bench/oauth.ts) against the last full report.
 */
export function withOAuthSection(report: string, o: OAuthSideResult): string {
  const lines = report.replace(/\n+$/, '').split('\n');
  // Its rows, and the row a run that failed it (or had not got to it) left.
  const kept = lines.filter(
    (line) =>
      !line.startsWith('| tasks/get, OAuth access token vs static token') &&
      !line.startsWith(`| ${OAUTH_HEADING.replace(/^## \d+\. /, '')} |`),
  );
  const summary = kept.indexOf('## Summary');
  if (summary >= 0) {
    let end = summary + 1;
    while (end < kept.length && !kept[end]?.startsWith('|')) end++;
    while (end < kept.length && kept[end]?.startsWith('|')) end++;
    kept.splice(end, 0, ...oauthSummaryRows(o).map((cells) => `| ${cells.join(' | ')} |`));
  }
  return withSection(kept.join('\n'), OAUTH_HEADING, oauthSection(o));
}

const MINER_HEADING = '## 5. Miner';
const LOAD_HEADING = '## 6. Load';

interface Part {
  key: PartKey;
  heading: string;
  /** The section, when the part measured something. */
  section(r: BenchResults): string | undefined;
}

/** The parts in the order of their sections. */
const PARTS: Part[] = [
  { key: 'overhead', heading: OVERHEAD_HEADING, section: (r) => r.overhead && overheadSection(r.overhead) },
  { key: 'notice', heading: NOTICE_HEADING, section: (r) => r.notice && noticeSection(r.notice) },
  { key: 'peer', heading: PEER_HEADING, section: (r) => r.peer && peerSection(r.peer) },
  {
    key: 'scale',
    heading: SCALE_HEADING,
    section: (r) => (r.scale?.length ? scaleSections(r.scale) : undefined),
  },
  {
    key: 'miner',
    heading: MINER_HEADING,
    section: ({ miner }) =>
      miner &&
      `${MINER_HEADING}\n\n${'unavailable' in miner ? `Not run: ${miner.unavailable}` : miner.output.trim()}`,
  },
  {
    key: 'load',
    heading: LOAD_HEADING,
    section: ({ load }) => load && `${LOAD_HEADING}\n\n${renderLoad(load.options, load.result)}`,
  },
  { key: 'push', heading: PUSH_HEADING, section: (r) => r.push && pushSection(r.push) },
  { key: 'oauth', heading: OAUTH_HEADING, section: (r) => r.oauth && oauthSection(r.oauth) },
  { key: 'tracing', heading: TRACING_HEADING, section: (r) => r.tracing && tracingSection(r.tracing) },
  { key: 'limits', heading: LIMITS_HEADING, section: (r) => r.limits && limitsSection(r.limits) },
  { key: 'noisy', heading: NOISY_HEADING, section: (r) => r.noisy && noisySection(r.noisy) },
  { key: 'waits', heading: WAITS_HEADING, section: (r) => r.waits && waitsSection(r.waits) },
];

const PENDING = 'Not measured yet (pending): the run had not got to this part when this file was written.';
const NONE = 'Not measured: the run ended without a result for this part.';

function partSection(part: Part, r: BenchResults): string {
  const measured = part.section(r);
  const error = r.failed?.[part.key];
  if (error === undefined)
    return measured ?? `${part.heading}\n\n${r.seconds === undefined ? PENDING : NONE}`;
  return [measured ?? part.heading, '', '**Failed**, with this error:', '', '```', error.trim(), '```'].join(
    '\n',
  );
}

/** The parts of this run, in the order of their sections. */
const partsOf = (r: BenchResults) => PARTS.filter((part) => !r.measured || r.measured.includes(part.key));

/** A summary row for each part that failed, or (while the run goes on) is still to run. */
function partStatusRows(r: BenchResults): Row[] {
  return partsOf(r).flatMap((part): Row[] => {
    const name = part.heading.replace(/^## \d+\. /, '');
    const error = r.failed?.[part.key];
    if (error !== undefined) {
      const first = (error.trim().split('\n')[0] ?? '').replaceAll('|', '\\|').slice(0, 160);
      return [[name, '**failed**', '—', first]];
    }
    if (r.seconds === undefined && part.section(r) === undefined)
      return [[name, 'pending', '—', 'not measured yet']];
    return [];
  });
}

export function renderReport(r: BenchResults): string {
  const done = partsOf(r).filter(
    (part) => part.section(r) !== undefined || r.failed?.[part.key] !== undefined,
  );
  const parts = `${done.length} of ${partsOf(r).length} parts done`;
  const when =
    r.seconds !== undefined
      ? `; took ${r.seconds.toFixed(0)} s`
      : r.stoppedBy
        ? `; stopped by ${r.stoppedBy} with ${parts}`
        : `; in progress: ${parts} when this was written`;
  return numberSections(
    `${[
      '# Benchmarks',
      '',
      'Generated by `npm run bench` (bench/run.ts), which writes this file again after every part: a part',
      'not run yet is marked pending, one that failed says so with its error. All traffic on loopback; a',
      'Temporal dev server (SQLite), workers and the gateway on the same machine. The Run line below is',
      'the run of the summary and of every section without a Run line of its own; a section with one was',
      'measured by that run (a part this run left out, or a bench of one part) and kept from the file.',
      '',
      `Run: ${machineLine(r.machine)}${when}.`,
      `Settings: ${Object.entries(r.settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}.`,
      '',
      '## Summary',
      '',
      table(['measure', 'result', 'target', ''], summaryRows(r)),
      ...partsOf(r).flatMap((part) => ['', partSection(part, r)]),
    ].join('\n')}\n`,
  );
}
