// The probes of the paths that list, push or serve what a task holds, and of the 2025-11-25
// revision's task methods, by another principal than the task's own: a push stream asked for the
// task (its acknowledged filter must leave it out, and nothing about it may come), a read of an
// artifact URI naming it and of an artifact the owner wrote and read (probe-artifacts.ts), the
// prober's resource and task listings (nothing of another principal may be in them, the owner's
// listed report among them), tasks/get and tasks/result of that revision; and, while the task asks
// for input, an answer POSTed as that revision's JSON-RPC response (202 as for any; the owner's
// look tells whether the run took it, and the audit reads the run's history for it).
import { randomBytes } from 'node:crypto';
import { inputRequestId } from '../../gateway/mcp/legacy-task-input.ts';
import { TASKS_CLIENT } from '../../test/support/mcp-http.ts';
import { listen } from '../../test/support/sse-listen.ts';
import { LEGACY_HEADERS } from './calls.ts';
import type { Job, JobContext } from './job-types.ts';
import { probeArtifactListing, probeArtifactRead } from './probe-artifacts.ts';
import { judgeTaskAnswer, type Verdict } from './probe-verdict.ts';
import { sameTask } from './same-task.ts';
import type { Principal } from './stack.ts';

export const VIEW_PATHS = [
  'subscriptions/listen',
  'resources/read',
  'resources/list',
  '2025-11-25 tasks/get',
  '2025-11-25 tasks/result',
  '2025-11-25 tasks/list',
] as const;

type ViewPath = (typeof VIEW_PATHS)[number];

interface Probe {
  job: Job;
  prober: Principal;
}

/** How long a push stream asked for the task is held after its acknowledgement. */
const LISTEN_HOLD_MS = 1_500;
const LEGACY = { framing: TASKS_CLIENT, legacy: true, probe: true };
const MODERN = { framing: TASKS_CLIENT, probe: true };

export function probeView(path: ViewPath, probe: Probe, ctx: JobContext): Promise<Verdict> {
  const id = probe.job.workflowId as string;
  switch (path) {
    case 'subscriptions/listen':
      return probeListen(probe, ctx);
    case 'resources/read':
      return Promise.all([
        probeRead(probe, ctx),
        probeArtifactRead(probe.job.principal, probe.prober, ctx),
      ]).then(worst);
    case 'resources/list':
      return probeArtifactListing(probe.job.principal, ctx, () =>
        probeListing(probe, ctx, 'resources/list', (result) =>
          ((result.resources ?? []) as { uri?: string }[]).map(
            (r) => /^artifact:\/\/([^/]+)\//.exec(r.uri ?? '')?.[1],
          ),
        ),
      );
    case '2025-11-25 tasks/list':
      return probeListing(probe, ctx, 'tasks/list', (result) =>
        ((result.tasks ?? []) as { taskId?: string }[]).map((task) => task.taskId),
      );
    default: {
      const method = path === '2025-11-25 tasks/get' ? 'tasks/get' : 'tasks/result';
      return ctx.calls.call(probe.prober, method, { taskId: id }, LEGACY).then((answer) => {
        // A tasks/result stream whose last message is no answer (a request for the task's input).
        if (answer.reason === 'http_200') return { leak: 'answered with a stream about it' };
        return judgeTaskAnswer(answer, id);
      });
    }
  }
}

/** A leak if either is one, else inconclusive if either is, else unknown. */
function worst(verdicts: Verdict[]): Verdict {
  return (
    verdicts.find((verdict) => typeof verdict === 'object') ??
    (verdicts.includes('inconclusive') ? 'inconclusive' : 'unknown')
  );
}

/** The principal whose task `taskId` is, as far as the soak knows. */
function ownerOf(ctx: JobContext, taskId: string): string | undefined {
  const owner = ctx.owners.get(taskId);
  if (owner !== undefined) return owner;
  for (const [id, name] of ctx.owners) if (sameTask(id, taskId)) return name;
  return undefined;
}

/** A listing of the prober's: every task it names is the prober's own or no task the soak knows. */
async function probeListing(
  { prober }: Probe,
  ctx: JobContext,
  method: string,
  taskIds: (result: Record<string, unknown>) => (string | undefined)[],
): Promise<Verdict> {
  const answer = await ctx.calls.call(prober, method, {}, method === 'tasks/list' ? LEGACY : MODERN);
  if (!answer.result) return 'inconclusive';
  const foreign = taskIds(answer.result).filter((id) => {
    const owner = id === undefined ? undefined : ownerOf(ctx, id);
    return owner !== undefined && owner !== prober.name;
  });
  return foreign.length === 0 ? 'unknown' : { leak: `listed another principal's ${foreign.join(', ')}` };
}

/** A read of an artifact of the task (a well-formed artifact id): not found, as for any unknown run. */
async function probeRead({ job, prober }: Probe, ctx: JobContext): Promise<Verdict> {
  const uri = `artifact://${job.workflowId}/${randomBytes(16).toString('base64url')}`;
  const answer = await ctx.calls.call(prober, 'resources/read', { uri }, MODERN);
  if (answer.result) return { leak: `served ${JSON.stringify(answer.result).slice(0, 200)}` };
  // A forged reference is the answer for a run of the caller's own, completed: it would say the run exists.
  const notFound = answer.error?.code === -32602 && answer.error.data?.uri === uri;
  return notFound
    ? 'unknown'
    : answer.reason === 'forged_artifact_reference'
      ? { leak: 'forged_artifact_reference' }
      : 'inconclusive';
}

/** A push stream asked for the task: acknowledged without it, and nothing about it while held. */
async function probeListen({ job, prober }: Probe, ctx: JobContext): Promise<Verdict> {
  const id = job.workflowId as string;
  const { url } = ctx.calls.nextUrl();
  let stream: Awaited<ReturnType<typeof listen>>;
  try {
    stream = await listen(url, { taskIds: [id] }, TASKS_CLIENT, { authorization: `Bearer ${prober.token}` });
  } catch {
    return 'inconclusive';
  }
  // next() throws when nothing comes in time: no acknowledgement is inconclusive, a quiet hold is clean.
  const next = (ms: number) => stream.next(ms).catch(() => 'quiet' as const);
  try {
    const ack = await next(5_000);
    if (ack === 'quiet' || ack?.method !== 'notifications/subscriptions/acknowledged') return 'inconclusive';
    const honoured = (ack.params as { notifications?: { taskIds?: string[] } }).notifications?.taskIds ?? [];
    if (honoured.some((taskId) => sameTask(taskId, id)))
      return { leak: `acknowledged ${JSON.stringify(honoured)}` };
    const until = Date.now() + LISTEN_HOLD_MS;
    for (let left = LISTEN_HOLD_MS; left > 0; left = until - Date.now()) {
      const message = await next(left);
      if (message === 'quiet' || !message) break;
      if (message.method === 'notifications/tasks')
        return { leak: `pushed ${JSON.stringify(message.params).slice(0, 200)}` };
    }
    return 'unknown';
  } finally {
    stream.close();
  }
}

/** The task's input request `key` answered by the prober: 202 as for any (the owner's look tells the rest). */
export async function probeInputAnswer(
  { job, prober }: Probe,
  key: string,
  input: Record<string, unknown>,
  ctx: JobContext,
): Promise<Verdict> {
  const { url } = ctx.calls.nextUrl();
  const body = { jsonrpc: '2.0', id: inputRequestId(job.workflowId as string, key), result: input };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...LEGACY_HEADERS, authorization: `Bearer ${prober.token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    return response.status === 202 ? 'unknown' : 'inconclusive';
  } catch {
    return 'inconclusive';
  }
}
