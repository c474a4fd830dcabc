// One tool of a workflow that meets the MCP contract, driven through the gateway as a 2026-07-28
// client with the Tasks extension: the call becomes a task, its progress shows as statusMessage,
// it turns input_required with one request, tasks/update answers it, and it completes.
import assert from 'node:assert/strict';
import { rpcResult } from './mcp-http.ts';
import { eventually } from './temporal.ts';

export interface InputRound {
  tool: string;
  arguments: Record<string, unknown>;
  /** A statusMessage the run's progress shows before it asks. */
  progress: RegExp;
  /** The key of the request it asks, and the answer given. */
  key: string;
  answer: Record<string, unknown>;
  /** How long the run may take to get from one stage to the next. */
  stageTimeoutMs?: number;
}

/** The task's final state (`completed`) once the round is done; the request asked is returned too. */
export async function driveInputRound(url: URL, round: InputRound) {
  const until = (taskId: string, done: (task: Record<string, unknown>) => boolean, what: string) =>
    eventually(
      async () => {
        const task = await rpcResult(url, 'tasks/get', { taskId });
        return done(task) ? task : undefined;
      },
      round.stageTimeoutMs ?? 30_000,
      what,
    );
  const created = await rpcResult(url, 'tools/call', { name: round.tool, arguments: round.arguments });
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  const taskId = String(created.taskId);
  const working = await until(taskId, (t) => round.progress.test(String(t.statusMessage)), 'progress');
  assert.equal(working.status, 'working');
  const asking = await until(taskId, (t) => t.status === 'input_required', 'input_required');
  const requests = asking.inputRequests as Record<string, { method: string; params: { message: string } }>;
  assert.deepEqual(Object.keys(requests), [round.key]);
  await rpcResult(url, 'tasks/update', { taskId, inputResponses: { [round.key]: round.answer } });
  const done = await until(taskId, (t) => t.status === 'completed', 'completion');
  return { done, request: requests[round.key] };
}
