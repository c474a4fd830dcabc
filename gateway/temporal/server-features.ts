// What the gateway uses from the Temporal server it meets, and since which release: the one home of
// the version rule. At start the gateway reads the server's version and capabilities
// (GetSystemInfo) and says in one line what that server lacks; docs/deployment.md lists the same.
import type { TemporalCalls } from './client.ts';

type Release = readonly [major: number, minor: number];

/** Features the gateway relies on that came with a server release (matching's dynamic config names). */
const BY_RELEASE: readonly { since: Release; lacking: string }[] = [
  {
    since: [1, 28],
    lacking:
      "priority keys are ignored, so a tool's `priority` has no effect (1.28+, matching.useNewMatcher=true before 1.31)",
  },
  {
    since: [1, 29],
    lacking:
      "fairness keys are ignored, so one principal's flood of runs is served ahead of another principal's " +
      'short call (1.29+ with matching.enableFairness=true)',
  },
];

/** Capabilities of GetSystemInfo the gateway's runs use. */
const CAPABILITIES = [
  { name: 'upsertMemo', lacking: 'runs cannot publish their progress in a memo (upsertMemo)' },
] as const;

type CapabilityName = (typeof CAPABILITIES)[number]['name'];

export interface ServerInfo {
  /** The server's version as GetSystemInfo gives it (absent: the server does not say). */
  serverVersion?: string;
  capabilities?: Partial<Record<CapabilityName, boolean | null>> | null;
}

/** The server's version and capabilities. */
export async function serverInfo(calls: TemporalCalls): Promise<ServerInfo> {
  const { serverVersion, capabilities } = await calls.call(() =>
    calls.client.workflowService.getSystemInfo({}),
  );
  return { serverVersion: serverVersion || undefined, capabilities };
}

function release(version: string | undefined): Release | undefined {
  const match = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

function olderThan([major, minor]: Release, [sinceMajor, sinceMinor]: Release): boolean {
  return major < sinceMajor || (major === sinceMajor && minor < sinceMinor);
}

/**
 * One line for the log saying what the server lacks of what the gateway uses; undefined when it
 * lacks nothing the API tells. A version it does not give (or not as major.minor) skips the release
 * rules. Whether 1.29+ has `matching.enableFairness` on is dynamic config, which the API does not tell.
 */
export function missingFeatures({ serverVersion, capabilities }: ServerInfo): string | undefined {
  const met = release(serverVersion);
  const lacking = [
    ...(met ? BY_RELEASE.filter(({ since }) => olderThan(met, since)).map((rule) => rule.lacking) : []),
    ...(capabilities ? CAPABILITIES.filter(({ name }) => !capabilities[name]).map((c) => c.lacking) : []),
  ];
  if (lacking.length === 0) return undefined;
  return `Temporal ${serverVersion ?? '(version not given)'} lacks what the gateway uses: ${lacking.join('; ')}`;
}
