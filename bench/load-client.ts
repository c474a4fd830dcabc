// One client of the load run (bench/load.ts): starts its share of start_mining tasks, then polls each
// at the advertised interval until it ends or the deadline passes. Every answer is counted
// (bench/load-outcomes.ts), none is thrown: a refused start is a refusal by its reason, a start
// answered `start_unconfirmed` is followed by the workflow id it names, a task that never settles
// is lost.
import { setTimeout as delay } from 'node:timers/promises';
import { PLAIN_CLIENT, type RpcAnswer, rpc, TASKS_CLIENT } from '../test/support/mcp-http.ts';
import { bump, errorLabel, type LoadCounts, networkLabel, reasonOf } from './load-outcomes.ts';

export interface LoadClient {
  url: URL;
  principal: { name: string; token: string };
  /** Declares the Tasks extension and polls with tasks/get; otherwise polls with get_mining_result. */
  tasksExtension: boolean;
  /** How many tasks this client starts. */
  count: number;
  difficulty: number;
  blocks: number;
  pollIntervalMs: number;
  deadlineMs: number;
  counts: LoadCounts;
  log(line: string): void;
}

interface Followed {
  id: string;
  /** Started by a `start_unconfirmed` answer: the run may not exist. */
  unconfirmed: boolean;
  notFound: number;
}

/** A run named by `start_unconfirmed` and not found this many polls in a row was never started. */
const NEVER_STARTED_AFTER = 5;

const ONGOING = new Set([undefined, 'working', 'running', 'input_required']);

async function call(
  client: LoadClient,
  method: string,
  params: Record<string, unknown>,
): Promise<{ answer?: RpcAnswer; label?: string }> {
  try {
    const framing = client.tasksExtension ? TASKS_CLIENT : PLAIN_CLIENT;
    const answer = await rpc(client.url, method, params, framing, {
      authorization: `Bearer ${client.principal.token}`,
    });
    const label = errorLabel(answer);
    if (label) bump(client.counts.errors, label);
    return { answer, ...(label ? { label } : {}) };
  } catch (err) {
    const label = networkLabel(err);
    bump(client.counts.errors, label);
    return { label };
  }
}

async function start(client: LoadClient, i: number): Promise<Followed | undefined> {
  const { principal, counts } = client;
  const { answer, label } = await call(client, 'tools/call', {
    name: 'start_mining',
    arguments: {
      difficulty: client.difficulty,
      blocks: client.blocks,
      data: `${principal.name}/${i}`,
      idempotency_key: `${principal.name}-${i}`,
    },
  });
  const id =
    answer?.result?.taskId ?? (answer?.result?.structuredContent as { workflow_id?: unknown })?.workflow_id;
  if (!label && typeof id === 'string') {
    counts.started++;
    return { id, unconfirmed: false, notFound: 0 };
  }
  const workflowId = (answer?.error?.data as { workflowId?: unknown } | undefined)?.workflowId;
  if (answer && reasonOf(answer) === 'start_unconfirmed' && typeof workflowId === 'string') {
    counts.unconfirmed++;
    client.log(`${principal.name}: start ${i} unconfirmed; following ${workflowId}`);
    return { id: workflowId, unconfirmed: true, notFound: 0 };
  }
  bump(counts.refused, label ?? 'no task id in the answer');
  return undefined;
}

/** Polls a task once; true once it has settled (and been counted). */
async function poll(client: LoadClient, task: Followed): Promise<boolean> {
  const { counts } = client;
  counts.polls++;
  const { answer } = client.tasksExtension
    ? await call(client, 'tasks/get', { taskId: task.id })
    : await call(client, 'tools/call', { name: 'get_mining_result', arguments: { workflow_id: task.id } });
  if (!answer) return false;
  const status = client.tasksExtension
    ? (answer.result?.status as string | undefined)
    : (answer.result?.structuredContent as { status?: string } | undefined)?.status;
  const notFound = reasonOf(answer) === 'task_not_found' || status === 'not_found';
  if (notFound && task.unconfirmed) {
    if (++task.notFound < NEVER_STARTED_AFTER) return false;
    bump(counts.refused, 'start_unconfirmed, never started');
    return true;
  }
  if (!notFound && ONGOING.has(status)) return false;
  if (status === 'completed') counts.completed++;
  else {
    bump(counts.ended, status ?? 'not_found');
    client.log(`${client.principal.name}: task ${task.id} ended ${status ?? 'not_found'}`);
  }
  return true;
}

export async function runClient(client: LoadClient): Promise<void> {
  const open: Followed[] = [];
  for (let i = 0; i < client.count; i++) {
    const task = await start(client, i);
    if (task) open.push(task);
  }
  const deadline = Date.now() + client.deadlineMs;
  while (open.length > 0 && Date.now() < deadline) {
    await delay(client.pollIntervalMs);
    for (const task of [...open]) {
      if (await poll(client, task)) open.splice(open.indexOf(task), 1);
    }
  }
  client.counts.lost += open.length;
}
