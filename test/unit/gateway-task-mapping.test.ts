// Execution state → Tasks extension shapes, each checked against the extension's own schemas.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CallToolResultV2Schema,
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import type { TaskTiming } from '../../gateway/mcp/poll-pacing.ts';
import { createTaskResult, emptyAck, getTaskResult } from '../../gateway/mcp/task-shapes.ts';
import { hasInputRequests } from '../../gateway/temporal/run-state.ts';
import {
  BROKEN,
  CANCELLED,
  CHAIN,
  COMPLETED,
  CREATED,
  MINING,
  NO_WORKER,
  REPORT,
  RUNNING,
  TOOL_ERROR,
  UPDATED,
  view,
  WAITING_FOR_INPUT,
} from '../support/gateway-fixtures.ts';

// The advice itself is poll-pacing.ts's (its own tests); here, that each answer carries the view's.
const timing: TaskTiming = {
  ttlMs: 3_600_000,
  pollIntervalFor: (view) => (hasInputRequests(view.state) ? 30_000 : 2_000),
};
const fixed = (ms: number): TaskTiming => ({ ...timing, pollIntervalFor: () => ms });

function validGetTask(value: unknown) {
  const parsed = GetTaskResultV2Schema.safeParse(value);
  assert.ok(parsed.success, `not a valid GetTaskResult: ${JSON.stringify(parsed.error?.issues)}`);
  return value as Record<string, unknown>;
}

describe('tasks/get mapping', () => {
  test('a running run is working, with progress in statusMessage and the poll interval', () => {
    const task = validGetTask(getTaskResult(view(RUNNING), MINING, timing));
    assert.equal(task.status, 'working');
    assert.equal(task.resultType, 'complete');
    assert.equal(task.taskId, 'mine-test');
    assert.equal(task.createdAt, CREATED.toISOString());
    assert.equal(task.lastUpdatedAt, UPDATED.toISOString());
    assert.equal(task.ttlMs, 3_600_000);
    assert.equal(task.pollIntervalMs, 2_000);
    assert.match(String(task.statusMessage), /block 2 of 3 at difficulty 22/);
    assert.match(String(task.statusMessage), /4,000,100 hashes/);
  });

  test('a running run without a worker is still working, saying no worker is polling', () => {
    const task = validGetTask(getTaskResult(view(NO_WORKER), MINING, timing));
    assert.equal(task.status, 'working');
    assert.match(String(task.statusMessage), /no worker is polling/);
  });

  test('outstanding input requests make the task input_required with every request inlined', () => {
    const task = validGetTask(getTaskResult(view(WAITING_FOR_INPUT), MINING, timing));
    assert.equal(task.status, 'input_required');
    assert.deepEqual(Object.keys(task.inputRequests as object), ['approve-publish-1']);
    assert.equal(task.pollIntervalMs, 30_000);
  });

  test('a completed run inlines the tool result, itself a complete CallToolResult', () => {
    const task = validGetTask(getTaskResult(view(COMPLETED), MINING, timing));
    assert.equal(task.status, 'completed');
    assert.equal(task.pollIntervalMs, undefined);
    const result = task.result as Record<string, unknown>;
    assert.ok(CallToolResultV2Schema.safeParse(result).success);
    assert.equal(result.resultType, 'complete');
    assert.equal(result.isError, undefined);
    assert.deepEqual((result.structuredContent as Record<string, unknown>).result, CHAIN);
    assert.match(String(task.statusMessage), /final hash 00a/);
  });

  test('a tool-level failure is completed with isError, not failed', () => {
    const task = validGetTask(getTaskResult(view(TOOL_ERROR), MINING, timing));
    assert.equal(task.status, 'completed');
    const result = task.result as Record<string, unknown>;
    assert.ok(CallToolResultV2Schema.safeParse(result).success);
    assert.equal(result.isError, true);
    assert.equal((result.structuredContent as Record<string, unknown>).status, 'failed');
  });

  test('a broken run is failed with a JSON-RPC error', () => {
    const task = validGetTask(getTaskResult(view(BROKEN), MINING, timing));
    assert.equal(task.status, 'failed');
    assert.deepEqual(task.error, {
      code: -32603,
      message: 'The mining run was terminated: operator',
      data: { reason: 'terminated' },
    });
    assert.match(String(task.statusMessage), /terminated/);
  });

  test('a cancelled run is cancelled', () => {
    const task = validGetTask(getTaskResult(view(CANCELLED), MINING, timing));
    assert.equal(task.status, 'cancelled');
    assert.equal(MINING.presentation.statusMessage(view(CANCELLED)), 'The mining run was cancelled');
  });
});

describe('a catalog tool with the generic presentation', () => {
  const reportView = (state: Parameters<typeof view>[0]) => ({
    ...view(state, 'start_report-abc'),
    tool: 'start_report',
    arguments: { year: 2026 },
  });

  test("the workflow's progress message is the statusMessage", () => {
    const state = { status: 'running', progress: { message: 'Step 2 of 5', progress: 1, total: 5 } } as const;
    const task = validGetTask(getTaskResult(reportView(state), REPORT, timing));
    assert.equal(task.status, 'working');
    assert.equal(task.statusMessage, 'Step 2 of 5');
  });

  test('input requests make it input_required; the default message says a person must answer', () => {
    const requests = WAITING_FOR_INPUT.status === 'running' ? WAITING_FOR_INPUT.progress?.inputRequests : {};
    const state = { status: 'running', progress: { inputRequests: requests } } as const;
    const task = validGetTask(getTaskResult(reportView(state), REPORT, timing));
    assert.equal(task.status, 'input_required');
    assert.equal(task.statusMessage, 'Waiting for a person to answer the input requests');
  });

  test('any JSON result is inlined as the start/poll result; a tool error is completed with isError', () => {
    const done = validGetTask(getTaskResult(reportView({ status: 'completed', result: 42 }), REPORT, timing));
    const result = done.result as { structuredContent: Record<string, unknown> };
    assert.deepEqual(result.structuredContent, {
      status: 'completed',
      workflow_id: 'start_report-abc',
      result: 42,
    });
    const refused = validGetTask(getTaskResult(reportView(TOOL_ERROR), REPORT, timing));
    assert.equal(refused.status, 'completed');
    assert.equal((refused.result as { isError?: boolean }).isError, true);
    assert.equal(refused.statusMessage, 'difficulty must be an integer from 1 to 40');
  });

  test('cancelled says "run"', () => {
    assert.equal(REPORT.presentation.statusMessage(reportView(CANCELLED)), 'The run was cancelled');
  });
});

describe('CreateTaskResult mapping', () => {
  test('a run seen without its progress says what it is mining', () => {
    const result = createTaskResult(view({ status: 'running' }), MINING, timing);
    assert.ok(CreateTaskResultV2Schema.safeParse(result).success);
    assert.equal(result.status, 'working');
    assert.equal(result.statusMessage, 'Mining 3 block(s) at difficulty 22');
  });

  test('a text block names the task id and how to follow it, for clients that drop task fields', () => {
    const result = createTaskResult(view({ status: 'running' }), MINING, fixed(500));
    assert.ok(CreateTaskResultV2Schema.safeParse(result).success);
    const [block] = result.content;
    assert.equal(block.type, 'text');
    assert.match(block.text, /^Started task mine-test \(working: Mining 3 block\(s\) at difficulty 22\)/);
    assert.match(block.text, /tasks\/get \(taskId "mine-test"\), about every 0\.5 seconds/);
    assert.match(block.text, /call get_mining_result with workflow_id "mine-test"/);
  });

  for (const [name, state, status] of [
    ['running', RUNNING, 'working'],
    ['without a worker', NO_WORKER, 'working'],
    ['waiting for input', WAITING_FOR_INPUT, 'input_required'],
  ] as const) {
    test(`a run ${name} answers a task handle with status ${status}`, () => {
      const result = createTaskResult(view(state), MINING, timing);
      const parsed = CreateTaskResultV2Schema.safeParse(result);
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
      assert.equal(result.resultType, 'task');
      assert.equal(result.status, status);
      assert.equal(result.taskId, 'mine-test');
      assert.equal(result.pollIntervalMs, status === 'input_required' ? 30_000 : 2_000);
      assert.equal(result.ttlMs, 3_600_000);
    });
  }

  test('one advice per answer: the task field, the start/poll handle and the text agree', () => {
    let draws = 0;
    // A new interval on every call, as jitter gives: an answer that asked twice would disagree.
    const drawing: TaskTiming = { ...timing, pollIntervalFor: () => 1_000 + 250 * ++draws };
    const result = createTaskResult(view(RUNNING), MINING, drawing);
    assert.equal(draws, 1);
    assert.equal(result.pollIntervalMs, 1_250);
    assert.equal(result.structuredContent.poll_after_seconds, 1.25);
    assert.match(result.content[0].text, /about every 1\.25 seconds/);
  });
});

test('tasks/update and tasks/cancel acknowledge with an empty complete result', () => {
  assert.ok(UpdateTaskResultV2Schema.safeParse(emptyAck()).success);
  assert.ok(CancelTaskResultV2Schema.safeParse(emptyAck()).success);
  assert.deepEqual(emptyAck(), { resultType: 'complete' });
});
