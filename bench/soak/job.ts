// One client-side call of the soak, followed to its end as a client would: start_mining with an
// idempotency key (retried with the same key after any fault, so a retry never starts a second
// run; a start_unconfirmed answer's workflowId is looked up), then polls at the advised interval,
// the cancel or the input answer its kind asks for, through tasks/* (a Tasks-extension client) or
// the start/poll companions (a plain client). Every answer must name this call's own task and
// carry its own data, or it is a finding.

import { setTimeout as delay } from 'node:timers/promises';
import { PLAIN_CLIENT, TASKS_CLIENT } from '../../test/support/mcp-http.ts';
import { ended, readAnswer, type Seen, transient } from './answers.ts';
import type { Answer } from './calls.ts';
import type { Finding, Job, JobContext } from './job-types.ts';
import { probeForeign, probeForeignInput } from './probe.ts';
import { sameTask } from './same-task.ts';

const RETRY_MS = 300;

/** Runs the call to its end (or the deadline); the job records what happened. */
export async function runJob(job: Job, ctx: JobContext): Promise<void> {
  const first = await start(job, ctx);
  if (!first || !job.workflowId) return;
  ctx.owners.set(job.workflowId, job.principal.name);
  await probeForeign(job, ctx);
  await follow(job, first, ctx);
}

const TRAIL = 8;

async function call(
  job: Job,
  ctx: JobContext,
  method: string,
  params: Record<string, unknown>,
): Promise<Answer> {
  const sent = Date.now();
  const answer = await ctx.calls.call(job.principal, method, params, {
    framing: job.tasks ? TASKS_CLIENT : PLAIN_CLIENT,
  });
  const name = method === 'tools/call' ? String(params.name) : method;
  const said = answer.result ? (readAnswer(answer.result).status ?? 'ok') : answer.reason;
  job.trail = [...job.trail.slice(1 - TRAIL), `${name} ${said} ${Date.now() - sent} ms`];
  return answer;
}

async function start(job: Job, ctx: JobContext): Promise<Seen | undefined> {
  const args = {
    difficulty: job.difficulty,
    blocks: job.blocks,
    data: job.data,
    idempotency_key: job.key,
    ...(job.kind === 'complete' ? {} : { require_approval: true }),
  };
  while (Date.now() < ctx.deadline) {
    const answer = await call(job, ctx, 'tools/call', { name: 'start_mining', arguments: args });
    if (answer.result) {
      const seen = readAnswer(answer.result);
      if (job.workflowId && !sameTask(seen.id, job.workflowId))
        finding(
          ctx,
          'wrong_answer',
          job,
          `start answered ${seen.id} after start_unconfirmed named ${job.workflowId}`,
        );
      job.workflowId = seen.id;
      job.accepted = seen.id !== undefined;
      if (job.accepted) return check(job, ctx, seen);
      job.refused = 'answer_without_id';
      finding(
        ctx,
        'wrong_answer',
        job,
        `start answered no task: ${JSON.stringify(answer.result).slice(0, 200)}`,
      );
      return undefined;
    }
    const named = answer.error?.data?.workflowId;
    if (answer.reason === 'start_unconfirmed' && typeof named === 'string') {
      job.unconfirmed++;
      job.workflowId = named;
      const seen = await look(job, ctx);
      if (seen && seen.status !== 'not_found') {
        job.accepted = true;
        return seen;
      }
    } else if (!transient(answer.reason)) {
      job.refused = answer.reason ?? 'unknown';
      return undefined;
    }
    await delay(RETRY_MS);
  }
  job.refused = 'gave_up';
  return undefined;
}

/** One poll of the run; undefined when the gateway did not answer it (a fault). */
async function look(job: Job, ctx: JobContext): Promise<Seen | undefined> {
  const id = job.workflowId as string;
  const answer = job.tasks
    ? await call(job, ctx, 'tasks/get', { taskId: id })
    : await call(job, ctx, 'tools/call', { name: 'get_mining_result', arguments: { workflow_id: id } });
  if (answer.result) return check(job, ctx, readAnswer(answer.result));
  if (answer.reason === 'task_not_found')
    return { id, status: 'not_found', inputKeys: [], recentIds: [], isError: false };
  return undefined;
}

/** Polls until the run ends, cancelling or answering its input as the kind says. */
async function follow(job: Job, first: Seen, ctx: JobContext): Promise<void> {
  let now = first;
  let cancelled = false;
  let probedInput = false;
  while (!ended(now.status)) {
    if (Date.now() >= ctx.deadline) {
      job.final = 'abandoned';
      return;
    }
    if (job.kind === 'cancel' && !cancelled) cancelled = await cancel(job, ctx);
    else if (job.kind === 'input' && now.status === 'input_required' && !job.answered) {
      const key = now.inputKeys[0] ?? 'approve-publish-1';
      if (!probedInput) await probeForeignInput(job, ctx, key);
      probedInput = true;
      job.answered = await answerInput(job, ctx, key);
    } else await delay(Math.min(2_000, Math.max(250, now.pollMs ?? 500)));
    now = (await look(job, ctx)) ?? now;
    if (now.status === 'not_found') {
      finding(ctx, 'wrong_answer', job, `its accepted task ${job.workflowId} read as not found`);
      job.final = 'abandoned';
      return;
    }
  }
  job.final = now.status as Job['final'];
  judge(job, ctx, now);
}

/** Sends the cancel; true once the gateway took it (or the run is gone past cancelling). */
async function cancel(job: Job, ctx: JobContext): Promise<boolean> {
  const id = job.workflowId as string;
  const answer = job.tasks
    ? await call(job, ctx, 'tasks/cancel', { taskId: id })
    : await call(job, ctx, 'tools/call', { name: 'cancel_mining', arguments: { workflow_id: id } });
  if (!answer.result && transient(answer.reason)) await delay(RETRY_MS);
  return answer.result !== undefined || !transient(answer.reason);
}

/** Answers the approval (accept, approve); true once the gateway took it. */
async function answerInput(job: Job, ctx: JobContext, key: string): Promise<boolean> {
  const id = job.workflowId as string;
  const response = { action: 'accept', content: { approve: true, note: job.key } };
  const answer = job.tasks
    ? await call(job, ctx, 'tasks/update', { taskId: id, inputResponses: { [key]: response } })
    : await call(job, ctx, 'tools/call', {
        name: 'respond_to_mining',
        arguments: { workflow_id: id, key, ...response },
      });
  if (answer.result) return true;
  if (transient(answer.reason)) await delay(RETRY_MS);
  return false;
}

/** Every answer names this call's task, and a completed one carries this call's data. */
function check(job: Job, ctx: JobContext, seen: Seen): Seen {
  if (seen.id !== undefined && seen.id !== job.workflowId)
    finding(ctx, 'cross_principal', job, `an answer about ${job.workflowId} named task ${seen.id}`);
  if (seen.chain && seen.chain.data !== job.data)
    finding(ctx, 'cross_principal', job, `its result carries data "${seen.chain.data}"`);
  for (const id of seen.recentIds) {
    const owner = ctx.owners.get(id);
    if (owner !== undefined && owner !== job.principal.name)
      finding(ctx, 'cross_principal', job, `recent_runs listed ${owner}'s task ${id}`);
  }
  return seen;
}

/** The end matches what the call asked for. */
function judge(job: Job, ctx: JobContext, end: Seen): void {
  const expected = job.kind === 'cancel' ? 'cancelled' : 'completed';
  if (end.status !== expected) finding(ctx, 'wrong_answer', job, `ended ${end.status}, expected ${expected}`);
  else if (job.kind === 'input' && end.chain?.publication?.status !== 'published')
    finding(
      ctx,
      'wrong_answer',
      job,
      `its approval was answered, publication ${end.chain?.publication?.status}`,
    );
}

function finding(ctx: Pick<JobContext, 'findings'>, kind: Finding['kind'], job: Job, text: string): void {
  ctx.findings.push({
    kind,
    text: `${job.principal.name} ${job.key} (${job.kind}, ${job.tasks ? 'tasks' : 'plain'}): ${text}`,
  });
}
