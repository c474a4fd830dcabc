// How a probe's answer reads: as for a task that does not exist, unanswered in a fault, or a leak.
import { transient } from './answers.ts';
import type { Answer } from './calls.ts';

/** Unknown: answered as for a task that does not exist; a string: the leak, described. */
export type Verdict = 'unknown' | 'inconclusive' | { leak: string };

/**
 * Not found as an unknown task reads; inconclusive when a fault kept the gateway from answering (or
 * it refused for a reason that names nothing of the task); a result, or an error about the task
 * (naming it, or how it ended), is a leak.
 */
export function judgeTaskAnswer(answer: Answer, id: string): Verdict {
  if (answer.result) return { leak: `answered ${JSON.stringify(answer.result).slice(0, 300)}` };
  if (answer.reason === 'task_not_found') return 'unknown';
  const said = JSON.stringify(answer.error ?? {});
  const aboutIt = said.includes(id.split('.')[0] as string) || said.includes('related-task');
  return aboutIt && !transient(answer.reason)
    ? { leak: `refused with ${said.slice(0, 300)}` }
    : 'inconclusive';
}
