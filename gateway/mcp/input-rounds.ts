// Input-required results (multi-round-trip requests, 2026-07-28): while a call waits on its run it
// looks at the run's progress after each change of its history, and answers `input_required` with a signed requestState the
// moment the run asks for input this client can answer; the retry brings the answers, which go to
// the run on its input signal. Answers are bounded in size and filtered to well-formed ones.
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { InputRequest, InputResponse, InputResponses } from '../../workflows/mcp-contract.ts';
import type { TemporalBackend } from '../temporal/backend.ts';
import type { Caller } from '../temporal/run-memo.ts';
import type { RunRef } from '../temporal/run-state.ts';
import { SHUTDOWN, type WaitResult } from '../temporal/wait.ts';
import type { CatalogTool } from './catalog.ts';
import { invalidParams } from './errors.ts';

/** What a requestState carries: the run, the tool it belongs to, which round asked, and its keys. */
export interface RoundState {
  workflowId: string;
  tool: string;
  round: number;
  /** The keys of the requests that round asked: its state answers those, and no later round's. */
  keys?: string[];
}

export function isRoundState(value: unknown): value is RoundState {
  const state = value as Partial<RoundState> | undefined;
  return (
    typeof state === 'object' &&
    state !== null &&
    typeof state.workflowId === 'string' &&
    typeof state.tool === 'string' &&
    typeof state.round === 'number'
  );
}

/**
 * A 2026-07-28 request's multi-round-trip material: the run a verified requestState names, the
 * answers it carries, which input requests this client can answer, and how to mint the state of
 * the next round.
 */
export interface InputRounds {
  /** The run the retried call continues (from its verified requestState); absent on a first call. */
  resumes?: RoundState;
  /** The call's inputResponses, as the SDK lifted them (untrusted). */
  responses?: Record<string, unknown>;
  answerable(requests: Record<string, InputRequest>): Record<string, InputRequest>;
  mint(state: RoundState): Promise<string>;
}

// An elicitation's answer has an action; a sampling or roots answer is the bare result object.
const elicitationAnswer = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});
const otherAnswer = z
  .looseObject({})
  .refine((value) => !('action' in value) && Object.keys(value).length > 0, 'not an input response');
export const inputResponsesSchema = z.record(z.string(), z.union([elicitationAnswer, otherAnswer]));

/** Largest one input response may be, as JSON: a form's answers, not a payload. */
const MAX_INPUT_RESPONSE_BYTES = 16 * 1024;

/** The responses, each checked against MAX_INPUT_RESPONSE_BYTES (-32602 naming the key). */
export function boundedResponses<T extends Record<string, unknown>>(responses: T): T {
  for (const [key, value] of Object.entries(responses)) {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > MAX_INPUT_RESPONSE_BYTES)
      throw invalidParams(
        `Invalid inputResponses: "${key.slice(0, 100)}" is ${bytes} bytes; at most ${MAX_INPUT_RESPONSE_BYTES} per response`,
      );
  }
  return responses;
}

/** The answers that look like answers (JSON objects); the workflow ignores keys it did not ask. */
function formAnswers(responses: Record<string, unknown> | undefined): InputResponses {
  const answers: InputResponses = {};
  for (const [key, value] of Object.entries(responses ?? {})) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const action = (value as { action?: unknown }).action;
    if (action !== undefined && action !== 'accept' && action !== 'decline' && action !== 'cancel') continue;
    answers[key] = value as InputResponse;
  }
  return answers;
}

/**
 * The answers a retry gives its run: only to the requests its round asked, and only while one of
 * them is still asked. A state replayed after its round was answered is refused (-32602); once the
 * run has ended, the retry is answered its outcome as before.
 */
async function roundAnswers(
  backend: TemporalBackend,
  tool: CatalogTool,
  caller: Caller,
  rounds: InputRounds & { resumes: RoundState },
): Promise<InputResponses> {
  const { keys } = rounds.resumes;
  const answers = boundedResponses(formAnswers(rounds.responses));
  if (!keys) return answers;
  const asked = await backend.views.progressOf(rounds.resumes.workflowId, caller, tool.progress);
  const open = asked?.inputRequests ?? {};
  if (asked && !keys.some((key) => Object.hasOwn(open, key)))
    throw invalidParams('requestState is of a round already answered; use the latest requestState');
  return Object.fromEntries(Object.entries(answers).filter(([key]) => keys.includes(key)));
}

/** Which capability a client must declare before it may be sent an input request of each method. */
const CAPABILITY_OF: Record<InputRequest['method'], 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The outstanding requests this client can answer: those whose capability it declared. */
export function answerableRequests(
  requests: Record<string, InputRequest>,
  capabilities: ClientCapabilities | undefined,
): Record<string, InputRequest> {
  const declared = (capabilities ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(requests).filter(([, request]) => {
      const capability = CAPABILITY_OF[request.method];
      return (
        capability !== undefined && typeof declared[capability] === 'object' && declared[capability] !== null
      );
    }),
  );
}

export interface InputRequiredAnswer {
  resultType: 'input_required';
  inputRequests: Record<string, InputRequest>;
  /** Names the run; the client echoes it with its answers (signed, bound to the caller). */
  requestState: string;
}

export function inputRequiredAnswer(
  requests: Record<string, InputRequest>,
  requestState: string,
): InputRequiredAnswer {
  return { resultType: 'input_required', inputRequests: requests, requestState };
}
/** How a call's wait ended: as a wait on the run does, or with input the client can answer. */
export type WaitEnd = WaitResult | { kind: 'input'; requests: Record<string, InputRequest> };

/** One wait of a call on its run. */
export interface CallWait {
  tool: CatalogTool;
  workflowId: string;
  /** The run in Temporal. */
  run: RunRef;
  caller: Caller;
  budgetMs: number;
  /** The client left. */
  gone: AbortSignal;
  /** The gateway stops. */
  stopping?: AbortSignal;
  /** The call's multi-round-trip material. */
  rounds: InputRounds;
  /** Answers a first call brought along, sent when the run asks for their keys. */
  carried?: Record<string, unknown>;
}

/**
 * Waits the budget for the run to close (a 2026-07-28 call of a tool that takes input), looking at
 * the run's progress at the start and after each change of its history (no timer): ends as soon as
 * the run asks for input this client can answer. Answers a first call brought along are signalled
 * when the run asks for their keys (once each), and the wait goes on.
 */
export async function waitOrAsk(backend: TemporalBackend, wait: CallWait): Promise<WaitEnd> {
  const { budgetMs, gone, stopping } = wait;
  const interrupt = new AbortController();
  const stop = () => interrupt.abort(SHUTDOWN);
  stopping?.addEventListener('abort', stop, { once: true });
  if (stopping?.aborted) stop();
  let asked: Record<string, InputRequest> | undefined;
  const onChange = inputLook(backend, wait, (requests) => {
    asked = requests;
    interrupt.abort('input_required');
  });
  const outcome = await backend.waits.forResult(wait.run, budgetMs, {
    callerLeft: gone,
    interrupt: interrupt.signal,
    onChange,
  });
  stopping?.removeEventListener('abort', stop);
  if (outcome.kind === 'closed' || !asked) return outcome;
  return { kind: 'input', requests: asked };
}

/**
 * One look at the run's input requests, for each change of the run: sends the carried answers the
 * run now asks for, or tells `onAsked` what this client can answer. A failed look is skipped (the
 * next change looks again); it never ends the wait.
 */
function inputLook(
  backend: TemporalBackend,
  wait: CallWait,
  onAsked: (requests: Record<string, InputRequest>) => void,
): () => Promise<void> {
  const { tool, workflowId, caller, gone, rounds } = wait;
  const unsent = new Map(Object.entries(formAnswers(wait.carried)));
  let asked = false;
  const look = async () => {
    const outstanding =
      (await backend.views.progressOf(workflowId, caller, tool.progress))?.inputRequests ?? {};
    if (asked || gone.aborted) return;
    const due = [...unsent].filter(([key]) => key in outstanding);
    if (due.length > 0) {
      // Their signal is a change of the run: the look after it sees what the run asks next.
      for (const [key] of due) unsent.delete(key);
      const input = { signalName: tool.inputSignal as string, responses: Object.fromEntries(due) };
      await backend.actions.sendInput(workflowId, caller, input);
      return;
    }
    const answerable = rounds.answerable(outstanding);
    if (Object.keys(answerable).length === 0) return;
    asked = true;
    onAsked(answerable);
  };
  return () => (asked || gone.aborted ? Promise.resolve() : look().catch(() => {}));
}

/**
 * A retry with answers (its requestState verified): the run it names gets them on the tool's
 * input signal; nothing starts. The call goes on with that run, one round further.
 */
export async function resumeRound(
  tool: CatalogTool,
  backend: TemporalBackend,
  call: { caller: Caller; rounds: InputRounds },
): Promise<{ workflowId: string; run: RunRef; round: number }> {
  const { caller, rounds } = call;
  const resumes = rounds.resumes;
  if (!resumes) throw new Error('resume without a requestState');
  if (resumes.tool !== tool.name) throw invalidParams('requestState belongs to a call of another tool');
  const answers = await roundAnswers(backend, tool, caller, { ...rounds, resumes });
  const input = { signalName: tool.inputSignal ?? '', responses: answers, ...tool.progress };
  const run =
    tool.inputSignal && Object.keys(answers).length > 0
      ? await backend.actions.sendInput(resumes.workflowId, caller, input)
      : (await backend.views.owned(resumes.workflowId, caller))?.run;
  if (!run) throw invalidParams('requestState names a run that no longer exists');
  return { workflowId: resumes.workflowId, run, round: resumes.round + 1 };
}
