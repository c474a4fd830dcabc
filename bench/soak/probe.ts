// Another principal tries a call's task on every path that takes a task id: as soon as it is
// accepted, the era's reads and cancel (tasks/get and tasks/cancel for a Tasks-extension client, the
// get and cancel companions for a plain one) and in turn one of the paths that list, push or serve
// what a task holds (probe-views.ts); while it asks for input, the era's answer (tasks/update, the
// respond companion) and a 2025-11-25 JSON-RPC response. Each must answer exactly as for a task
// that never existed and show nothing of the other principal; any answer about the run itself is a
// cross-principal finding. After each input, the owner reads the run: it must still ask the key (an
// answer the run took would have ended that, the answer being taken before it is acknowledged). An
// input a probe sends carries PROBE_MARKER, so the audit also finds in the run's history any that
// got through (a cancel that got through would end the run cancelled, which the owner's call reports).
import { PLAIN_CLIENT, TASKS_CLIENT } from '../../test/support/mcp-http.ts';
import { readAnswer } from './answers.ts';
import type { Answer } from './calls.ts';
import { type Job, type JobContext, PROBE_MARKER, type ProbePath } from './job-types.ts';
import { judgeTaskAnswer, type Verdict } from './probe-verdict.ts';
import { probeInputAnswer, probeView, VIEW_PATHS } from './probe-views.ts';
import type { Principal } from './stack.ts';

/**
 * The probes of `job`'s task by another principal as soon as it is accepted, counted by path: reads
 * and the cancel of the job's era, then in turn one of the paths that list, push or serve a task.
 */
export async function probeForeign(job: Job, ctx: JobContext): Promise<void> {
  const prober = ctx.other(job.principal);
  const id = job.workflowId as string;
  const attempts: [ProbePath, string, Record<string, unknown>][] = job.tasks
    ? [
        ['tasks/get', 'tasks/get', { taskId: id }],
        ['tasks/cancel', 'tasks/cancel', { taskId: id }],
      ]
    : [
        ['get_mining_result', 'tools/call', { name: 'get_mining_result', arguments: { workflow_id: id } }],
        ['cancel_mining', 'tools/call', { name: 'cancel_mining', arguments: { workflow_id: id } }],
      ];
  await send(job, ctx, prober, attempts);
  const path = VIEW_PATHS[ctx.probed++ % VIEW_PATHS.length] as (typeof VIEW_PATHS)[number];
  count(ctx, path, prober, id, await probeView(path, { job, prober }, ctx));
}

/**
 * While the task asks for input (a run takes only the answers it asks for), another principal
 * answers it, approving nothing, on the job's era's path and as a 2025-11-25 JSON-RPC response.
 * Both must change nothing: the audit looks for PROBE_MARKER in the run's history.
 */
export async function probeForeignInput(job: Job, ctx: JobContext, key: string): Promise<void> {
  const prober = ctx.other(job.principal);
  const id = job.workflowId as string;
  const input = { action: 'accept', content: { approve: false, note: `${PROBE_MARKER} by ${prober.name}` } };
  const [path, method, params]: [ProbePath, string, Record<string, unknown>] = job.tasks
    ? ['tasks/update', 'tasks/update', { taskId: id, inputResponses: { [key]: input } }]
    : [
        'respond_to_mining',
        'tools/call',
        { name: 'respond_to_mining', arguments: { workflow_id: id, key, ...input } },
      ];
  const options = { framing: job.tasks ? TASKS_CLIENT : PLAIN_CLIENT, probe: true };
  const answer = await ctx.calls.call(prober, method, params, options);
  const answered = judgeProbe(answer, id, job.tasks);
  count(ctx, path, prober, id, ignored(answered, await stillAsks(job, ctx, key), key));
  const posted = await probeInputAnswer({ job, prober }, key, input, ctx);
  count(ctx, '2025-11-25 input answer', prober, id, ignored(posted, await stillAsks(job, ctx, key), key));
}

/** Whether the run still asks `key`, as its owner reads it; undefined when a fault kept it from reading. */
async function stillAsks(job: Job, ctx: JobContext, key: string): Promise<boolean | undefined> {
  const id = job.workflowId as string;
  const answer = job.tasks
    ? await ctx.calls.call(job.principal, 'tasks/get', { taskId: id }, { framing: TASKS_CLIENT })
    : await ctx.calls.call(
        job.principal,
        'tools/call',
        { name: 'get_mining_result', arguments: { workflow_id: id } },
        { framing: PLAIN_CLIENT },
      );
  return answer.result ? readAnswer(answer.result).inputKeys.includes(key) : undefined;
}

/** An input probe's verdict once the owner has looked: a leak when the run no longer asks the key. */
function ignored(verdict: Verdict, asked: boolean | undefined, key: string): Verdict {
  if (typeof verdict === 'object') return verdict;
  if (asked === undefined) return 'inconclusive';
  return asked ? verdict : { leak: `the run took the answer to ${key}: it no longer asks it` };
}

async function send(
  job: Job,
  ctx: JobContext,
  prober: Principal,
  attempts: [ProbePath, string, Record<string, unknown>][],
): Promise<void> {
  const options = { framing: job.tasks ? TASKS_CLIENT : PLAIN_CLIENT, probe: true };
  for (const [path, method, params] of attempts) {
    const answer = await ctx.calls.call(prober, method, params, options);
    count(
      ctx,
      path,
      prober,
      job.workflowId as string,
      judgeProbe(answer, job.workflowId as string, job.tasks),
    );
  }
}

function count(ctx: JobContext, path: ProbePath, prober: Principal, id: string, verdict: Verdict): void {
  const tally = ctx.probes[path];
  tally.sent++;
  if (verdict === 'unknown') tally.unknown++;
  else if (verdict === 'inconclusive') tally.inconclusive++;
  else
    ctx.findings.push({
      kind: 'cross_principal',
      text: `${prober.name} ${path} on ${ctx.owners.get(id)}'s task ${id}: ${verdict.leak}`,
    });
}

function judgeProbe(answer: Answer, id: string, tasks: boolean): Verdict {
  if (tasks || !answer.result) return judgeTaskAnswer(answer, id);
  const seen = readAnswer(answer.result);
  if (seen.status === 'not_found' && !seen.recentIds.includes(id)) return 'unknown';
  return { leak: `answered ${JSON.stringify(answer.result).slice(0, 300)}` };
}
