// The probes of what a task serves as resources, against an artifact that exists: the owner writes a
// small report (write_report, whose run returns an artifact), reads its bytes back and finds it in
// its resources/list; another principal's read of the same URI must be answered as for an unknown
// artifact, and its listing must name nothing of the owner's. The owner's side is what makes the
// probe able to fail: an owner refused too would prove nothing about the other principal.
import { createHash } from 'node:crypto';
import { pollUntil } from '../../common/poll.ts';
import { TASKS_CLIENT } from '../../test/support/mcp-http.ts';
import { transient } from './answers.ts';
import type { Answer } from './calls.ts';
import type { JobContext } from './job-types.ts';
import type { Verdict } from './probe-verdict.ts';
import type { Principal } from './stack.ts';

const MODERN = { framing: TASKS_CLIENT, probe: true };
/** A report's size: small, the soak measures the paths, not the bytes. */
const REPORT_BYTES = 2_048;
/** How long the owner's listing gets to show a report just written (visibility lists it within moments). */
const LISTED_WITHIN_MS = 10_000;
/** How long a report's task is followed: a run of a moment, unless a fault holds it up. */
const FOLLOW_MS = 60_000;

interface Artifact {
  uri: string;
  sha256: string;
}

/**
 * The owner's new report (its task recorded as the owner's), or undefined when a fault kept it from
 * one. A run that outlasts the call's budget is a task, followed to its result as a client would.
 */
async function writeReport(owner: Principal, ctx: JobContext): Promise<Artifact | undefined> {
  const answer = await ctx.calls.call(
    owner,
    'tools/call',
    { name: 'write_report', arguments: { bytes: REPORT_BYTES, seed: 1 + ctx.probed } },
    { framing: TASKS_CLIENT },
  );
  const taskId = answer.result?.resultType === 'task' ? answer.result.taskId : undefined;
  const result =
    typeof taskId === 'string'
      ? await pollUntil(
          async () => {
            const task = (await ctx.calls.call(owner, 'tasks/get', { taskId }, { framing: TASKS_CLIENT }))
              .result;
            return task?.status === 'completed' ? (task.result as Record<string, unknown>) : undefined;
          },
          { timeoutMs: FOLLOW_MS, intervalMs: 500 },
        ).catch(() => undefined)
      : answer.result;
  const json = result?.structuredContent as { artifacts?: Artifact[] } | undefined;
  const artifact = json?.artifacts?.[0];
  const task = artifact && /^artifact:\/\/([^/]+)\//.exec(artifact.uri)?.[1];
  if (!artifact || !task) return undefined;
  ctx.owners.set(task, owner.name);
  return artifact;
}

/** The owner's answer should have served it: a wrong answer unless a fault explains it. */
function ownerRefused(ctx: JobContext, owner: Principal, what: string, answer: Answer | undefined): Verdict {
  if (!answer || !transient(answer.reason))
    ctx.findings.push({
      kind: 'wrong_answer',
      text: `${owner.name} ${what}: ${JSON.stringify(answer?.error ?? answer?.result ?? {}).slice(0, 200)}`,
    });
  return 'inconclusive';
}

/** The owner reads its report's bytes; the prober's read of the same URI is "not found". */
export async function probeArtifactRead(
  owner: Principal,
  prober: Principal,
  ctx: JobContext,
): Promise<Verdict> {
  const artifact = await writeReport(owner, ctx);
  if (!artifact) return 'inconclusive';
  const uri = artifact.uri;
  const own = await ctx.calls.call(owner, 'resources/read', { uri }, { framing: TASKS_CLIENT });
  const blob = (own.result?.contents as { blob?: string }[] | undefined)?.[0]?.blob;
  const digest = blob === undefined ? undefined : createHash('sha256').update(Buffer.from(blob, 'base64'));
  if (digest?.digest('hex') !== artifact.sha256)
    return ownerRefused(ctx, owner, `could not read its own artifact ${uri}`, own);
  const theirs = await ctx.calls.call(prober, 'resources/read', { uri }, MODERN);
  if (theirs.result)
    return { leak: `served ${owner.name}'s ${uri}: ${JSON.stringify(theirs.result).slice(0, 200)}` };
  return theirs.error?.code === -32602 && theirs.error.data?.uri === uri ? 'unknown' : 'inconclusive';
}

/**
 * The owner's listing names its report (once visibility lists the run); then the prober's listing,
 * judged by `judge` (it must name nothing of another principal's, the report among them).
 */
export async function probeArtifactListing(
  owner: Principal,
  ctx: JobContext,
  judge: () => Promise<Verdict>,
): Promise<Verdict> {
  const artifact = await writeReport(owner, ctx);
  if (!artifact) return 'inconclusive';
  let last: Answer | undefined;
  const listed = await pollUntil(
    async () => {
      last = await ctx.calls.call(owner, 'resources/list', {}, { framing: TASKS_CLIENT });
      const uris = ((last.result?.resources ?? []) as { uri?: string }[]).map((r) => r.uri);
      return uris.includes(artifact.uri) || undefined;
    },
    { timeoutMs: LISTED_WITHIN_MS, intervalMs: 250 },
  ).catch(() => false);
  if (listed) return judge();
  return ownerRefused(ctx, owner, `resources/list did not name its artifact ${artifact.uri}`, last);
}
