// How long a call waits for its run, and the wait itself: one bounded wait that ends the moment the
// run closes, with the input a 2026-07-28 client can answer asked for during it, and progress sent
// to a client that gave a progress token. A start and a companion that acts on a run both wait here.
import type { ServerContext } from '@modelcontextprotocol/server';
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import type { Caller } from '../shared/caller.ts';
import type { RunParts } from '../temporal/backend.ts';
import type { ExecutionView, RunRef } from '../temporal/run-state.ts';
import type { TaskName } from '../temporal/task-ids.ts';
import { SHUTDOWN, type WaitResult } from '../temporal/wait.ts';
import type { CatalogTool } from './catalog.ts';
import { formAnswers, type InputRounds } from './input-rounds.ts';
import type { ProgressReport } from './presentation-hooks.ts';
import type { ToolCall, ToolDeps } from './tool-definition.ts';

/** How long a call waits for its run: the tool's budget, or less for a client given a budget of its own. */
export function waitBudgetFor(
  tool: Pick<CatalogTool, 'waitBudgetMs'>,
  clientName: string | undefined,
  budgets: ReadonlyMap<string, number> | undefined,
): number {
  const own = clientName === undefined ? undefined : budgets?.get(clientName.toLowerCase());
  return own === undefined ? tool.waitBudgetMs : Math.min(own, tool.waitBudgetMs);
}

/**
 * Runs a call that will wait holding one of its caller's concurrent waits: one that waits on its run
 * (its budget is above 0), or resumes a round (its answers' send waits until the run took them).
 * Past MCP_MAX_WAITS_PER_PRINCIPAL it is refused before it does anything (wait_limit).
 */
export function holdingWait<T>(
  tool: CatalogTool,
  deps: ToolDeps,
  call: ToolCall,
  work: () => Promise<T>,
): Promise<T> {
  const budgetMs = waitBudgetFor(tool, call.origin.clientName, deps.clientWaitBudgets);
  const waits = budgetMs > 0 || call.rounds?.resumes !== undefined;
  return waits ? deps.waits.holding(call.caller.principal, work) : work();
}

/** How a call's wait ended: as a wait on the run does, or with input the client can answer. */
export type WaitEnd = WaitResult | { kind: 'input'; requests: Record<string, InputRequest> };

/** The run a call waits on, and what the wait may do besides waiting. */
export interface CallRunWait {
  /** The task id, as the call parsed it. */
  task: TaskName;
  run: RunRef;
  /** Send notifications/progress when the request carries a progress token (a start does). */
  reportsProgress?: boolean;
  /** Answers a first call brought along, sent when the run asks for their keys. */
  carried?: Record<string, unknown>;
  /**
   * Keys this call answered: never asked again (a key is unique for the run's lifetime), even
   * while what the run last published still shows them (it took the answer after the wait's bound).
   */
  answered?: readonly string[];
}

/**
 * Waits at most the call's budget for its run. Only a 2026-07-28 call of a tool that asks for input
 * watches for input while it waits. The run exists: a wait Temporal cuts short ends as `running`
 * (the call answers its handle), never as an error.
 */
export async function waitForRun(
  tool: CatalogTool,
  deps: ToolDeps,
  call: ToolCall,
  wait: CallRunWait,
): Promise<WaitEnd> {
  const budgetMs = waitBudgetFor(tool, call.origin.clientName, deps.clientWaitBudgets);
  const callerLeft = call.ctx.mcpReq.signal;
  const { rounds } = call;
  const watchesInput =
    rounds && (tool.progressQuery || tool.progressForm === 'published') && tool.inputSignal;
  const waiting = watchesInput
    ? waitOrAsk(deps, { tool, caller: call.caller, budgetMs, callerLeft, rounds, ...wait })
    : deps.waits.forResult(wait.run, budgetMs, {
        callerLeft,
        ...(deps.stopping ? { interrupt: deps.stopping } : {}),
      });
  const token = (call.ctx.mcpReq._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const reported =
    wait.reportsProgress && (typeof token === 'string' || typeof token === 'number')
      ? withProgress(
          call.ctx,
          {
            token,
            first: { progress: 0, message: `Started ${tool.name}; waiting for the result` },
            read: progressReader(tool, deps, call.caller, wait.task),
          },
          waiting,
        )
      : waiting;
  return reported.catch((): WaitEnd => ({ kind: 'running' }));
}

/** The caller's run of this tool, as it is now; undefined when it is not one. */
export async function toolRunView(
  deps: Pick<ToolDeps, 'views'>,
  tool: CatalogTool,
  task: TaskName,
  caller: Caller,
): Promise<ExecutionView | undefined> {
  const found = await deps.views.read(task, caller, {
    ...tool.progress,
    idPrefix: tool.idPrefix,
  });
  return found?.tool === tool.name ? found : undefined;
}

// ---- input asked during the wait (2026-07-28) --------------------------------------------------------

interface InputWait extends CallRunWait {
  tool: CatalogTool;
  caller: Caller;
  budgetMs: number;
  /** The client left. */
  callerLeft: AbortSignal;
  rounds: InputRounds;
}

/**
 * Looks at the run's progress at the start and after each change of its history (no timer): ends as
 * soon as the run asks for input this client can answer. Answers the first call brought along are
 * signalled when the run asks for their keys (once each), and the wait goes on.
 */
async function waitOrAsk(deps: ToolDeps, wait: InputWait): Promise<WaitEnd> {
  const { stopping } = deps;
  const interrupt = new AbortController();
  const stop = () => interrupt.abort(SHUTDOWN);
  stopping?.addEventListener('abort', stop, { once: true });
  if (stopping?.aborted) stop();
  let asked: Record<string, InputRequest> | undefined;
  const onChange = inputLook(deps, wait, (requests) => {
    asked = requests;
    interrupt.abort('input_required');
  });
  const outcome = await deps.waits.forResult(wait.run, wait.budgetMs, {
    callerLeft: wait.callerLeft,
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
  parts: Pick<RunParts, 'views' | 'actions'>,
  wait: InputWait,
  onAsked: (requests: Record<string, InputRequest>) => void,
): () => Promise<void> {
  const { tool, task, caller, callerLeft, rounds } = wait;
  const unsent = new Map(Object.entries(formAnswers(wait.carried)));
  const answered = new Set(wait.answered);
  let asked = false;
  const look = async () => {
    const requests = (await parts.views.progressOf(task, caller, tool.progress))?.inputRequests;
    const outstanding = Object.fromEntries(
      Object.entries(requests ?? {}).filter(([key]) => !answered.has(key)),
    );
    if (asked || callerLeft.aborted) return;
    const due = [...unsent].filter(([key]) => key in outstanding);
    if (due.length > 0) {
      // Their signal is a change of the run: the look after it sees what the run asks next.
      for (const [key] of due) {
        unsent.delete(key);
        answered.add(key);
      }
      const input = { signalName: tool.inputSignal as string, responses: Object.fromEntries(due) };
      await parts.actions.sendInput(task, caller, input);
      return;
    }
    const answerable = rounds.answerable(outstanding);
    if (Object.keys(answerable).length === 0) return;
    asked = true;
    onAsked(answerable);
  };
  return () => (asked || callerLeft.aborted ? Promise.resolve() : look().catch(() => {}));
}

// ---- progress sent during the wait ---------------------------------------------------------------------

const PROGRESS_INTERVAL_MS = 1_000;

/** Reads the run's progress report while it runs; undefined once it has closed or is not found. */
function progressReader(tool: CatalogTool, deps: ToolDeps, caller: Caller, task: TaskName) {
  return async (): Promise<ProgressReport | undefined> => {
    const now = await toolRunView(deps, tool, task, caller);
    return now?.state.status === 'running' ? tool.presentation.progressReport(now) : undefined;
  };
}

/**
 * Runs `work` while sending notifications/progress (the response is an SSE stream then): a first
 * report at once, then the run's whenever its progress is above the last one sent (the spec wants
 * it to grow with every notification). A failed read or notification is skipped, never fatal.
 */
async function withProgress<T>(
  ctx: ServerContext,
  reporting: {
    token: string | number;
    first: ProgressReport;
    read: () => Promise<ProgressReport | undefined>;
  },
  work: Promise<T>,
): Promise<T> {
  const { token, first, read } = reporting;
  const send = (report: ProgressReport) =>
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, ...report } })
      .catch(() => {});
  let done = false;
  let wake: () => void = () => {};
  const settled = work.finally(() => {
    done = true;
    wake();
  });
  const loop = (async () => {
    let last = first;
    await send(first);
    while (!done) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, PROGRESS_INTERVAL_MS).unref();
      });
      if (done) break;
      const report = await read().catch(() => undefined);
      if (!done && report && report.progress > last.progress) {
        last = report;
        await send(report);
      }
    }
  })();
  try {
    return await settled;
  } finally {
    await loop;
  }
}
