// What an answer of the gateway says about a run, whatever its shape: a task (CreateTaskResult, a
// tasks/get result) or a start/poll tool result (structuredContent with workflow_id). Pure.

export type RunStatus = 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed' | 'not_found';

export interface Seen {
  /** The task id or workflow_id the answer names. */
  id?: string;
  status?: RunStatus;
  /** The interval it advises. */
  pollMs?: number;
  /** The keys of its outstanding input requests. */
  inputKeys: string[];
  /** A completed run's chain: its data and publication. */
  chain?: { data?: string; publication?: { status?: string } };
  /** A not_found answer's recent runs of the caller (their ids). */
  recentIds: string[];
  /** The tool result said isError. */
  isError: boolean;
}

const STATUSES: Record<string, RunStatus> = {
  working: 'working',
  running: 'working',
  input_required: 'input_required',
  completed: 'completed',
  cancelled: 'cancelled',
  failed: 'failed',
  not_found: 'not_found',
};

type Json = Record<string, unknown>;
const object = (value: unknown): Json | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Reads a task or a start/poll result; an acknowledgement (tasks/update, tasks/cancel) reads empty. */
export function readAnswer(result: Json): Seen {
  if (typeof result.taskId === 'string') return readTask(result);
  const json = object(result.structuredContent) ?? {};
  const seconds = typeof json.poll_after_seconds === 'number' ? json.poll_after_seconds : undefined;
  const recent = Array.isArray(json.recent_runs) ? json.recent_runs : [];
  const status = STATUSES[text(json.status) ?? ''];
  const id = text(json.workflow_id);
  const chain = object(json.result) as Seen['chain'];
  return {
    ...(id ? { id } : {}),
    ...(status ? { status } : {}),
    ...(seconds === undefined ? {} : { pollMs: seconds * 1_000 }),
    inputKeys: Object.keys(object(json.input_requests) ?? {}),
    ...(chain ? { chain } : {}),
    recentIds: recent.map((run) => text(object(run)?.workflow_id)).filter((id) => id !== undefined),
    isError: result.isError === true,
  };
}

function readTask(task: Json): Seen {
  const status = STATUSES[text(task.status) ?? ''];
  const content = object(object(task.result)?.structuredContent);
  const chain = object(content?.result) as Seen['chain'];
  return {
    id: String(task.taskId),
    ...(status ? { status } : {}),
    ...(typeof task.pollIntervalMs === 'number' ? { pollMs: task.pollIntervalMs } : {}),
    inputKeys: Object.keys(object(task.inputRequests) ?? {}),
    ...(chain ? { chain } : {}),
    recentIds: [],
    isError: object(task.result)?.isError === true,
  };
}

/** Whether the run has ended. */
export function ended(status: RunStatus | undefined): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'failed';
}

/** Refusals a client retries (the same call again, the same idempotency key): a fault, not an answer. */
export function transient(reason: string | undefined): boolean {
  if (!reason) return false;
  return (
    ['connection', 'client_timeout', 'temporal_unavailable', 'start_unconfirmed', 'internal'].includes(
      reason,
    ) ||
    reason.startsWith('http_5') ||
    reason === 'code_-32603'
  );
}
