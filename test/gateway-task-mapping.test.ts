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
import {
  createTaskResult,
  emptyAck,
  getTaskResult,
  statusMessage,
  type TaskTiming,
} from '../gateway/mcp/task-mapping.ts';
import {
  BROKEN,
  CANCELLED,
  CHAIN,
  COMPLETED,
  CREATED,
  NO_WORKER,
  RUNNING,
  TOOL_ERROR,
  UPDATED,
  view,
  WAITING_FOR_INPUT,
} from './support/gateway-fixtures.ts';

const timing: TaskTiming = { ttlMs: 3_600_000, pollIntervalMs: 2_000 };

function validGetTask(value: unknown) {
  const parsed = GetTaskResultV2Schema.safeParse(value);
  assert.ok(parsed.success, `not a valid GetTaskResult: ${JSON.stringify(parsed.error?.issues)}`);
  return value as Record<string, unknown>;
}

describe('tasks/get mapping', () => {
  test('a running run is working, with progress in statusMessage and the poll interval', () => {
    const task = validGetTask(getTaskResult(view(RUNNING), timing));
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
    const task = validGetTask(getTaskResult(view(NO_WORKER), timing));
    assert.equal(task.status, 'working');
    assert.match(String(task.statusMessage), /no worker is polling/);
  });

  test('outstanding input requests make the task input_required with every request inlined', () => {
    const task = validGetTask(getTaskResult(view(WAITING_FOR_INPUT), timing));
    assert.equal(task.status, 'input_required');
    assert.deepEqual(Object.keys(task.inputRequests as object), ['approve-publish-1']);
  });

  test('a completed run inlines the tool result, itself a complete CallToolResult', () => {
    const task = validGetTask(getTaskResult(view(COMPLETED), timing));
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
    const task = validGetTask(getTaskResult(view(TOOL_ERROR), timing));
    assert.equal(task.status, 'completed');
    const result = task.result as Record<string, unknown>;
    assert.ok(CallToolResultV2Schema.safeParse(result).success);
    assert.equal(result.isError, true);
    assert.equal((result.structuredContent as Record<string, unknown>).status, 'failed');
  });

  test('a broken run is failed with a JSON-RPC error', () => {
    const task = validGetTask(getTaskResult(view(BROKEN), timing));
    assert.equal(task.status, 'failed');
    assert.deepEqual(task.error, BROKEN.status === 'failed' ? BROKEN.error : undefined);
    assert.match(String(task.statusMessage), /terminated/);
  });

  test('a cancelled run is cancelled', () => {
    const task = validGetTask(getTaskResult(view(CANCELLED), timing));
    assert.equal(task.status, 'cancelled');
    assert.equal(statusMessage(view(CANCELLED)), 'The mining run was cancelled');
  });
});

describe('CreateTaskResult mapping', () => {
  test('a run seen without its progress says what it is mining', () => {
    const result = createTaskResult(view({ status: 'running' }), timing);
    assert.ok(CreateTaskResultV2Schema.safeParse(result).success);
    assert.equal(result.status, 'working');
    assert.equal(result.statusMessage, 'Mining 3 block(s) at difficulty 22');
  });

  for (const [name, state, status] of [
    ['running', RUNNING, 'working'],
    ['without a worker', NO_WORKER, 'working'],
    ['waiting for input', WAITING_FOR_INPUT, 'input_required'],
  ] as const) {
    test(`a run ${name} answers a task handle with status ${status}`, () => {
      const result = createTaskResult(view(state), timing);
      const parsed = CreateTaskResultV2Schema.safeParse(result);
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
      assert.equal(result.resultType, 'task');
      assert.equal(result.status, status);
      assert.equal(result.taskId, 'mine-test');
      assert.equal(result.pollIntervalMs, 2_000);
      assert.equal(result.ttlMs, 3_600_000);
    });
  }
});

test('tasks/update and tasks/cancel acknowledge with an empty complete result', () => {
  assert.ok(UpdateTaskResultV2Schema.safeParse(emptyAck()).success);
  assert.ok(CancelTaskResultV2Schema.safeParse(emptyAck()).success);
  assert.deepEqual(emptyAck(), { resultType: 'complete' });
});
