// Starting a catalog tool's run: an unguessable task id that names its owner (or, with an
// idempotency key, the id the key names), a slot of the running-task cap, and the start itself with
// the memo, search attributes and Web UI texts (its summary line, its Markdown details) it carries. Everything a start does shares one
// deadline, so an unreachable Temporal fails the call within the call timeout.
import { createHmac } from 'node:crypto';
import { PROGRESS_MEMO } from '../../workflows/mcp-contract.ts';
import { activeTraceCarrier, tracing } from '../shared/tracing.ts';
import type { TemporalCalls } from './client.ts';
import {
  GRPC,
  grpcCode,
  IdempotencyConflictError,
  isTemporalUnavailable,
  NotStartedError,
  StartRefusedError,
  StartUnconfirmedError,
} from './errors.ts';
import { KeyedStarts } from './keyed-start.ts';
import { type Caller, MCP_PRINCIPAL, MCP_TOOL, type RequestOrigin, type RunMemo } from './run-memo.ts';
import { RUN_SLOT_MEMO, type RunningTaskSlots, type Slot } from './slots.ts';
import { differingArguments, keyedTaskId, newTaskId } from './task-ids.ts';
import { MCP_TASK_STATUS, type TaskStatusAttribute } from './task-status.ts';
import type { RunViews } from './view.ts';

/** A run to start for a catalog tool. */
export interface StartRequest {
  tool: {
    name: string;
    idPrefix: string;
    workflow: string;
    taskQueue: string;
    /** `published`: the run publishes its progress (its memo is seeded, it carries McpTaskStatus). */
    progressForm?: 'published' | 'query';
  };
  /** The workflow's single argument. */
  input: unknown;
  /** The tool arguments as validated (defaults applied), kept with the run. */
  arguments: Record<string, unknown>;
  /** Arguments the tool's schema marks `writeOnly` (secrets): kept with the run only as a keyed digest. */
  secretArguments?: readonly string[];
  /**
   * Makes the start idempotent: the same (caller, tool, key) names the same run, which a retried
   * start returns; the same key with other arguments is an invalid-params error.
   */
  idempotencyKey?: string;
  /** One line for the Web UI. */
  summary: string;
}

export interface StartedRun {
  workflowId: string;
  /** When this call created the run; absent when a keyed start answered a run already there. */
  createdAt?: Date;
}

export interface StartDeps {
  calls: TemporalCalls;
  views: RunViews;
  serverSecret: Buffer;
  /** A key of the server secret: secret arguments are kept as digests under it. */
  secretArgumentKey: Buffer;
  slots?: RunningTaskSlots;
  /** Whether runs that publish their progress may carry McpTaskStatus. */
  taskStatus: TaskStatusAttribute;
}

/** One start: the request, for whom, under which id and slot, with the arguments as the memo keeps them. */
interface RunToStart {
  request: StartRequest;
  caller: Caller;
  workflowId: string;
  kept: Record<string, unknown>;
  slot: Slot | undefined;
}

export class RunStarts {
  private readonly keyedStarts: KeyedStarts;

  constructor(private readonly deps: StartDeps) {
    this.keyedStarts = new KeyedStarts(deps.views, deps.slots);
  }

  /** Starts a run; resolves once the start is durable. */
  run(request: StartRequest, caller: Caller): Promise<StartedRun> {
    const { calls } = this.deps;
    return calls.sharingDeadline(calls.options.callTimeoutMs, () =>
      request.idempotencyKey === undefined
        ? this.fresh(request, caller)
        : this.keyed(request, caller, request.idempotencyKey),
    );
  }

  private async fresh(request: StartRequest, caller: Caller): Promise<StartedRun> {
    const { serverSecret, slots } = this.deps;
    const workflowId = newTaskId(serverSecret, caller.principal, request.tool.idPrefix);
    const slot = await slots?.take(caller.principal, workflowId).catch((err: unknown) => {
      throw isTemporalUnavailable(err) ? new NotStartedError(workflowId, err) : err;
    });
    try {
      const kept = this.keptArguments(request);
      const started = await this.startRun({ request, caller, workflowId, kept, slot });
      if (slot) slots?.hold(workflowId, slot);
      return started;
    } catch (err) {
      // Unconfirmed, the run may exist: its slot stays held (a full look frees it if not).
      if (!isTemporalUnavailable(err)) {
        if (slot) slots?.releaseLater(slot);
        throw err;
      }
      return this.unconfirmed(workflowId, caller, err);
    }
  }

  /**
   * A start Temporal did not confirm in time may still have been committed: the run is looked for
   * once (on a deadline of its own) and answered if it is there; otherwise the caller is told its
   * id, never only "try again" (a retry without an idempotency key would start a second run).
   */
  private async unconfirmed(workflowId: string, caller: Caller, cause: unknown): Promise<StartedRun> {
    const { calls, views } = this.deps;
    const found = await calls.ownDeadline(() => views.owned(workflowId, caller)).catch(() => undefined);
    if (found) return { workflowId };
    throw new StartUnconfirmedError(workflowId, cause);
  }

  /**
   * A start with an idempotency key: the key names the run (keyed task id), a retry answers the run
   * already there (running or closed, no cap applies to answering it), and the same key with other
   * arguments is refused. Concurrent starts with the key hold one slot (keyed-start.ts).
   */
  private async keyed(request: StartRequest, caller: Caller, key: string): Promise<StartedRun> {
    const { serverSecret, views } = this.deps;
    const workflowId = keyedTaskId(serverSecret, caller.principal, request.tool, key);
    const kept = this.keptArguments(request);
    const run =
      (await views.owned(workflowId, caller)) ??
      (await this.keyedStarts.start(workflowId, caller, (slot) =>
        this.startRun({ request, caller, workflowId, kept, slot }, 'USE_EXISTING'),
      ));
    // A concurrent start with this key may have won with other arguments.
    const differing = differingArguments(run.memo.arguments ?? {}, kept);
    if (differing.length > 0) throw new IdempotencyConflictError(key, request.tool.name, differing);
    return { workflowId };
  }

  /**
   * Starts the run under `workflowId`. Temporal's refusal of what it was given is not "not found"
   * but a start refused.
   */
  private async startRun(run: RunToStart, conflictPolicy?: 'USE_EXISTING'): Promise<StartedRun> {
    const { request, caller, workflowId, kept, slot } = run;
    const { tool } = request;
    const createdAt = new Date();
    const publishes = tool.progressForm === 'published';
    const memo: RunMemo = {
      tool: tool.name,
      createdAt: createdAt.toISOString(),
      arguments: kept,
      principal: caller.principal,
      ...(caller.origin ? { origin: caller.origin } : {}),
      // Later polls and pushes link to the start's trace (tracing on only).
      ...(tracing ? { trace: activeTraceCarrier() } : {}),
      // The run's own key, there from the start: a run without it is one that never publishes.
      ...(publishes ? { [PROGRESS_MEMO]: {} } : {}),
    };
    const { taskStatus } = this.deps;
    const withStatus = publishes && (taskStatus.known ?? (await taskStatus.registered()));
    try {
      await this.deps.calls.call(() =>
        this.deps.calls.client.workflow.start(tool.workflow, {
          workflowId,
          taskQueue: tool.taskQueue,
          args: [request.input],
          // The slot too: of concurrent keyed starts, the one whose slot the run names keeps it.
          memo: { ...memo, ...(slot ? { [RUN_SLOT_MEMO]: slot } : {}) },
          typedSearchAttributes: [
            { key: MCP_TOOL, value: tool.name },
            { key: MCP_PRINCIPAL, value: caller.principal },
            ...(withStatus ? [{ key: MCP_TASK_STATUS, value: 'working' }] : []),
          ],
          staticSummary: runSummary(request.summary),
          staticDetails: runDetails({ ...memo, origin: caller.origin }),
          // A keyed start: a running run with this id is returned as is, and a closed one is never
          // replaced by a second run (the start fails and the existing run is answered instead).
          ...(conflictPolicy
            ? { workflowIdConflictPolicy: conflictPolicy, workflowIdReusePolicy: 'REJECT_DUPLICATE' as const }
            : {}),
        }),
      );
    } catch (err) {
      if (grpcCode(err) === GRPC.INVALID_ARGUMENT) throw new StartRefusedError(err);
      throw err;
    }
    // With USE_EXISTING the run may be an older one: its creation time is not ours to tell.
    return conflictPolicy ? { workflowId } : { workflowId, createdAt };
  }

  /**
   * The arguments as the memo and the Web UI keep them: a secret one as a digest keyed by the server
   * secret (a retry with the same key can still be compared, the value cannot be read or guessed).
   */
  private keptArguments(request: StartRequest): Record<string, unknown> {
    const secrets = request.secretArguments ?? [];
    if (!secrets.some((name) => name in request.arguments)) return request.arguments;
    const kept = { ...request.arguments };
    for (const name of secrets) {
      if (!(name in kept)) continue;
      const digest = createHmac('sha256', this.deps.secretArgumentKey)
        .update(JSON.stringify(kept[name]))
        .digest('hex')
        .slice(0, 32);
      kept[name] = `[secret hmac-sha256:${digest}]`;
    }
    return kept;
  }
}

// ---- the Web UI's texts -------------------------------------------------------------------------

/** Temporal's limit on a run's Web UI summary, in bytes. */
const SUMMARY_MAX_BYTES = 400;

/** The Web UI summary cut to Temporal's limit (a long principal must not make the start fail). */
function runSummary(text: string): string {
  if (Buffer.byteLength(text) <= SUMMARY_MAX_BYTES) return text;
  let cut = text.slice(0, SUMMARY_MAX_BYTES - 3);
  while (Buffer.byteLength(`${cut}…`) > SUMMARY_MAX_BYTES) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Longest argument text the Web UI details show (Temporal caps the details at 20,000 bytes). */
const DETAILS_ARGUMENTS_MAX_CHARS = 8_000;

/**
 * Caller-supplied text as Markdown inline code: backticks and line breaks cannot end the span or
 * start markup of their own, and the text is cut to a bounded length.
 */
function code(text: string, max = 200): string {
  const flat = text.replace(/[`\r\n]/g, ' ');
  return `\`${flat.length > max ? `${flat.slice(0, max)}…` : flat}\``;
}

/** Caller-supplied text as plain Markdown: no character that could start markup, bounded. */
function plain(text: string, max = 50): string {
  const flat = text.replace(/[`*_[\]<>#\\\r\n]/g, '');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A fenced block no content can close: its fence is longer than any run of backticks inside. */
function fenced(language: string, text: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${language}`, text, fence];
}

function clientLine(origin: RequestOrigin | undefined): string {
  if (origin?.clientName) {
    return `${code(origin.clientName)}${origin.clientVersion ? ` ${plain(origin.clientVersion)}` : ''}`;
  }
  const agent = origin?.userAgent ? ` (User-Agent ${code(origin.userAgent)})` : '';
  return `not named on this request${agent}: 2025-era clients name themselves only in \`initialize\``;
}

/** The Web UI's details of a run (Markdown): caller, MCP client, protocol revision, arguments. */
export function runDetails(run: Omit<RunMemo, 'createdAt'>): string {
  let args = JSON.stringify(run.arguments, null, 2);
  if (args.length > DETAILS_ARGUMENTS_MAX_CHARS) {
    args = `${args.slice(0, DETAILS_ARGUMENTS_MAX_CHARS)}\n… (${args.length - DETAILS_ARGUMENTS_MAX_CHARS} more characters)`;
  }
  return [
    `- **Caller:** ${code(run.principal)}`,
    `- **MCP client:** ${clientLine(run.origin)}`,
    `- **Protocol revision:** ${plain(run.origin?.protocolVersion ?? 'unknown')}`,
    `- **Tool:** ${code(run.tool)}`,
    '',
    '**Arguments:**',
    '',
    ...fenced('json', args),
  ].join('\n');
}
