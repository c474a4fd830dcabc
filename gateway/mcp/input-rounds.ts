// Input-required results (multi-round-trip requests, 2026-07-28): the signed requestState that names
// a call's run and round, and the retry that brings the answers to the run on its input signal
// (the wait that asks is call-wait.ts). Answers are bounded in size and filtered to well-formed ones.
import type {
  ClientCapabilities,
  RequestStateCodec,
  Server,
  ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { InputRequest, InputResponse, InputResponses } from '../../workflows/mcp-contract.ts';
import type { Caller } from '../shared/caller.ts';
import type { RunParts } from '../temporal/backend.ts';
import type { RunRef } from '../temporal/run-state.ts';
import { parseTaskId, type TaskName } from '../temporal/task-ids.ts';
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

function isRoundState(value: unknown): value is RoundState {
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
export function formAnswers(responses: Record<string, unknown> | undefined): InputResponses {
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
  parts: Pick<RunParts, 'views' | 'actions'>,
  tool: CatalogTool,
  { caller, task }: { caller: Caller; task: TaskName },
  rounds: InputRounds & { resumes: RoundState },
): Promise<InputResponses> {
  const { keys } = rounds.resumes;
  const answers = boundedResponses(formAnswers(rounds.responses));
  if (!keys) return answers;
  const asked = await parts.views.progressOf(task, caller, tool.progress);
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
function answerableRequests(
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
/**
 * A retry with answers (its requestState verified): the run it names gets them on the tool's
 * input signal; nothing starts. The call goes on with that run, one round further.
 */
export async function resumeRound(
  tool: CatalogTool,
  parts: Pick<RunParts, 'views' | 'actions'>,
  call: { caller: Caller; rounds: InputRounds },
): Promise<{ task: TaskName; run: RunRef; round: number; answered: string[] }> {
  const { caller, rounds } = call;
  const resumes = rounds.resumes;
  if (!resumes) throw new Error('resume without a requestState');
  // Parsed once here: the answers, the signal and the wait after it all take the value.
  const task = parseTaskId(resumes.workflowId) ?? resumes.workflowId;
  if (resumes.tool !== tool.name) throw invalidParams('requestState belongs to a call of another tool');
  const answers = await roundAnswers(parts, tool, { caller, task }, { ...rounds, resumes });
  const input = { signalName: tool.inputSignal ?? '', responses: answers, ...tool.progress };
  const run =
    tool.inputSignal && Object.keys(answers).length > 0
      ? await parts.actions.sendInput(task, caller, input)
      : (await parts.views.owned(task, caller))?.run;
  if (!run) throw invalidParams('requestState names a run that no longer exists');
  return { task, run, round: resumes.round + 1, answered: Object.keys(answers) };
}

/** A 2026-07-28 call's multi-round-trip material (the SDK verified its requestState already). */
export function inputRounds(
  server: Server,
  ctx: ServerContext,
  requestStates: RequestStateCodec<RoundState>,
): InputRounds {
  const resumes = ctx.mcpReq.requestState<RoundState>();
  const capabilities = server.getClientCapabilities();
  return {
    ...(isRoundState(resumes) ? { resumes } : {}),
    ...(ctx.mcpReq.inputResponses ? { responses: ctx.mcpReq.inputResponses } : {}),
    answerable: (requests) => answerableRequests(requests, capabilities),
    mint: (state) => requestStates.mint(state, ctx),
  };
}
