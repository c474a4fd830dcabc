// Another principal tries a call's task as soon as it is accepted: reads it (tasks/get or
// get_mining_result) and cancels it (tasks/cancel or cancel_mining). Both must answer exactly as for
// a task that never existed; any answer about the run itself is a cross-principal finding (and a
// cancel that got through would also end the run cancelled, which the owner's call reports).
import { PLAIN_CLIENT, TASKS_CLIENT } from '../../test/support/mcp-http.ts';
import { readAnswer } from './answers.ts';
import type { Answer } from './calls.ts';
import type { Job, JobContext } from './job-types.ts';

type Verdict = 'not_found' | 'inconclusive' | 'leak';

/** Both probes of `job`'s task by another principal, counted; a leak is a finding. */
export async function probeForeign(job: Job, ctx: JobContext): Promise<void> {
  const other = ctx.other(job.principal);
  const id = job.workflowId as string;
  const options = { framing: job.tasks ? TASKS_CLIENT : PLAIN_CLIENT, probe: true };
  const attempts = job.tasks
    ? [
        ['tasks/get', { taskId: id }],
        ['tasks/cancel', { taskId: id }],
      ]
    : [
        ['tools/call', { name: 'get_mining_result', arguments: { workflow_id: id } }],
        ['tools/call', { name: 'cancel_mining', arguments: { workflow_id: id } }],
      ];
  for (const [method, params] of attempts as [string, Record<string, unknown>][]) {
    const answer = await ctx.calls.call(other, method, params, options);
    const verdict = judgeProbe(answer, id, job.tasks);
    ctx.probes.sent++;
    if (verdict === 'not_found') ctx.probes.notFound++;
    else if (verdict === 'inconclusive') ctx.probes.inconclusive++;
    else
      ctx.findings.push({
        kind: 'cross_principal',
        text: `${other.name} ${method} on ${job.principal.name}'s task ${id} answered ${JSON.stringify(answer.result).slice(0, 300)}`,
      });
  }
}

/** Not found as an unknown task reads; inconclusive when a fault kept the gateway from answering. */
function judgeProbe(answer: Answer, id: string, tasks: boolean): Verdict {
  if (!answer.result) return answer.reason === 'task_not_found' ? 'not_found' : 'inconclusive';
  if (tasks) return 'leak';
  const seen = readAnswer(answer.result);
  return seen.status === 'not_found' && !seen.recentIds.includes(id) ? 'not_found' : 'leak';
}
