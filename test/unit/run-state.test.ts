// What Temporal returned → the gateway's state of a run (gateway/temporal/run-state.ts), from the
// client's own values: failures its result throws, descriptions decoded from a describe's answer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServiceError, type WorkflowExecutionDescription, WorkflowFailedError } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  RetryState,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { msNumberToTs } from '@temporalio/common/lib/time.js';
import protos from '@temporalio/proto';
import { taskStatus } from '../../gateway/mcp/task-shapes.ts';
import {
  completedState,
  isRunning,
  isSizeCause,
  isWorkflowTaskRetrying,
  listedState,
  resultTooLargeState,
  stateFromResultError,
  TOO_LARGE_TERMINATION,
  timestampMs,
  viewTimes,
} from '../../gateway/temporal/run-state.ts';

const { enums, workflowservice } = protos.temporal.api;
const Status = enums.v1.WorkflowExecutionStatus;

const workflowFailed = (cause: Error) =>
  new WorkflowFailedError('Workflow execution failed', cause, RetryState.NON_RETRYABLE_FAILURE);

/** A timestamp as a describe's answer carries it (seconds a Long). */
const at = msNumberToTs;

/** A description as `handle.describe()` makes it, from a describe's answer through the wire. */
async function described(
  response: protos.temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse,
): Promise<WorkflowExecutionDescription> {
  const { DescribeWorkflowExecutionResponse } = workflowservice.v1;
  const raw = DescribeWorkflowExecutionResponse.decode(
    DescribeWorkflowExecutionResponse.encode(response).finish(),
  );
  const info = await executionInfoFromRaw(
    raw.workflowExecutionInfo ?? {},
    loadDataConverter(),
    raw,
    'default',
  );
  return { ...info, raw, staticDetails: async () => undefined, staticSummary: async () => undefined };
}

function execution(status: number, times: { start: number; close?: number }) {
  return {
    execution: { workflowId: 'wf', runId: '7f1c2c9e-4b8e-4c2e-9a49-4a1f4d5e6f70' },
    type: { name: 'mine' },
    status,
    startTime: at(times.start),
    ...(times.close === undefined ? {} : { closeTime: at(times.close) }),
  };
}

describe('a result, or the failure it throws → execution state', () => {
  test('a result is completed; no result is null', () => {
    assert.deepEqual(completedState({ nonce: 7 }), { status: 'completed', result: { nonce: 7 } });
    assert.deepEqual(completedState(undefined), { status: 'completed', result: null });
  });

  test('cancelled', () => {
    assert.deepEqual(stateFromResultError(workflowFailed(new CancelledFailure('cancelled'))), {
      status: 'cancelled',
    });
  });

  test('terminated and timed out are broken runs, not tool errors', () => {
    for (const [cause, reason, message] of [
      [new TerminatedFailure('operator stopped it'), 'terminated', 'was terminated: operator stopped it'],
      [new TerminatedFailure('Workflow execution terminated'), 'terminated', 'was terminated'],
      [new TimeoutFailure('timed out', undefined, 'START_TO_CLOSE'), 'timed_out', 'timed out: timed out'],
    ] as const) {
      assert.deepEqual(stateFromResultError(workflowFailed(cause)), {
        status: 'failed',
        toolError: false,
        reason,
        message,
      });
    }
  });

  test('terminated for a result too large, by the gateway or by the history service', () => {
    for (const message of [TOO_LARGE_TERMINATION, 'Result exceeds size limit.']) {
      const state = stateFromResultError(workflowFailed(new TerminatedFailure(message)));
      assert.deepEqual(state, resultTooLargeState());
      assert.ok(state?.status === 'failed');
      assert.equal(state.reason, 'result_too_large');
      assert.match(state.message, /^failed: its result is larger than Temporal accepts/);
    }
  });

  test('a failure of type McpToolError is a tool error with its message', () => {
    const state = stateFromResultError(
      workflowFailed(ApplicationFailure.nonRetryable('difficulty too high', 'McpToolError')),
    );
    assert.deepEqual(state, {
      status: 'failed',
      toolError: true,
      reason: 'McpToolError',
      message: 'difficulty too high',
    });
  });

  test('a failure of any other type, even non-retryable, is a broken run', () => {
    const state = stateFromResultError(
      workflowFailed(ApplicationFailure.nonRetryable('difficulty too high', 'InvalidMiningParameters')),
    );
    assert.deepEqual(state, {
      status: 'failed',
      toolError: false,
      reason: 'failed',
      message: 'failed: difficulty too high',
    });
  });

  test('an McpToolError an activity raised and the workflow let through is still a tool error', () => {
    const activity = new ActivityFailure(
      'Activity task failed',
      'mineBlock',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'worker',
      ApplicationFailure.nonRetryable('no nonce meets difficulty', 'McpToolError'),
    );
    const state = stateFromResultError(workflowFailed(activity));
    assert.ok(state?.status === 'failed');
    assert.equal(state.toolError, true);
    assert.equal(state.message, 'no nonce meets difficulty');
  });

  test('an activity that spent its retries is a broken run, named by its root cause', () => {
    const activity = new ActivityFailure(
      'Activity task failed',
      'mineBlock',
      '1',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      'worker',
      ApplicationFailure.retryable('disk full', 'Error'),
    );
    const state = stateFromResultError(workflowFailed(activity));
    assert.ok(state?.status === 'failed');
    assert.equal(state.toolError, false);
    assert.equal(state.message, 'failed: disk full');
  });

  test('errors that are not workflow outcomes are left to the caller', () => {
    assert.equal(stateFromResultError(new Error('socket hang up')), undefined);
    assert.equal(stateFromResultError(new ServiceError('unavailable')), undefined);
  });
});

describe('a describe → running or closed, and the view times', () => {
  test('only a running run is running', async () => {
    assert.equal(
      isRunning(
        await described({
          workflowExecutionInfo: execution(Status.WORKFLOW_EXECUTION_STATUS_RUNNING, { start: 1_000 }),
        }),
      ),
      true,
    );
    for (const status of [
      Status.WORKFLOW_EXECUTION_STATUS_COMPLETED,
      Status.WORKFLOW_EXECUTION_STATUS_FAILED,
      Status.WORKFLOW_EXECUTION_STATUS_CANCELED,
      Status.WORKFLOW_EXECUTION_STATUS_TERMINATED,
      Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT,
      Status.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW,
    ]) {
      const closed = await described({
        workflowExecutionInfo: execution(status, { start: 1_000, close: 2_000 }),
      });
      assert.equal(isRunning(closed), false, String(status));
    }
  });

  test('a workflow task on its second attempt or later is retrying', async () => {
    const info = execution(Status.WORKFLOW_EXECUTION_STATUS_RUNNING, { start: 1_000 });
    for (const [attempt, retrying] of [
      [1, false],
      [2, true],
      [5, true],
    ] as const) {
      const description = await described({ workflowExecutionInfo: info, pendingWorkflowTask: { attempt } });
      assert.equal(isWorkflowTaskRetrying(description), retrying, `attempt ${attempt}`);
    }
    assert.equal(isWorkflowTaskRetrying(await described({ workflowExecutionInfo: info })), false);
  });

  test('created at the memo time, else the start; last updated at the latest heartbeat, start or close', async () => {
    const running = await described({
      workflowExecutionInfo: execution(Status.WORKFLOW_EXECUTION_STATUS_RUNNING, {
        start: 1_700_000_000_250,
      }),
      pendingActivities: [
        { lastStartedTime: at(1_700_000_003_000), lastHeartbeatTime: at(1_700_000_004_567) },
      ],
    });
    assert.deepEqual(viewTimes(running, undefined), {
      createdAt: new Date(1_700_000_000_250),
      lastUpdatedAt: new Date(1_700_000_004_567),
    });
    const closed = await described({
      workflowExecutionInfo: execution(Status.WORKFLOW_EXECUTION_STATUS_COMPLETED, {
        start: 1_700_000_000_000,
        close: 1_700_000_009_000,
      }),
    });
    assert.deepEqual(viewTimes(closed, '2023-11-14T22:13:19.000Z'), {
      createdAt: new Date('2023-11-14T22:13:19.000Z'),
      lastUpdatedAt: new Date(1_700_000_009_000),
    });
    // The start's own answer gave a creation time after the run's start: never updated before it.
    const justStarted = await described({
      workflowExecutionInfo: execution(Status.WORKFLOW_EXECUTION_STATUS_RUNNING, {
        start: 1_700_000_000_000,
      }),
    });
    const created = '2023-11-14T22:13:20.500Z';
    assert.deepEqual(viewTimes(justStarted, created).lastUpdatedAt, new Date(created));
  });

  test('a timestamp in ms, as decoded (seconds a Long) or plain; none without seconds', async () => {
    const { Timestamp } = protos.google.protobuf;
    const decoded = Timestamp.decode(Timestamp.encode(at(1_700_000_001_234)).finish());
    assert.equal(timestampMs(decoded), 1_700_000_001_234);
    assert.equal(timestampMs({ seconds: 2, nanos: 999_999 }), 2_000);
    assert.equal(timestampMs({ seconds: null, nanos: 5 }), undefined);
    assert.equal(timestampMs(null), undefined);
    assert.equal(timestampMs(undefined), undefined);
  });
});

describe('a listed run → its status, and the task status of each era', () => {
  test('running, completed and cancelled are themselves; every other close is a failure', () => {
    const cases: [number | null | undefined, string, string][] = [
      [Status.WORKFLOW_EXECUTION_STATUS_RUNNING, 'running', 'working'],
      [Status.WORKFLOW_EXECUTION_STATUS_COMPLETED, 'completed', 'completed'],
      [Status.WORKFLOW_EXECUTION_STATUS_CANCELED, 'cancelled', 'cancelled'],
      [Status.WORKFLOW_EXECUTION_STATUS_FAILED, 'failed', 'failed'],
      [Status.WORKFLOW_EXECUTION_STATUS_TERMINATED, 'failed', 'failed'],
      [Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT, 'failed', 'failed'],
      [Status.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, 'failed', 'failed'],
      [Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED, 'failed', 'failed'],
      [undefined, 'failed', 'failed'],
    ];
    for (const [code, status, task] of cases) {
      const state = listedState(code);
      assert.deepEqual(state, { status }, String(code));
      assert.equal(taskStatus(state), task, String(code));
    }
  });

  test('a described state: input requests and tool errors', () => {
    const confirm = {
      method: 'elicitation/create',
      params: { message: 'Go on?', requestedSchema: { type: 'object', properties: {} } },
    } as const;
    assert.equal(
      taskStatus({ status: 'running', progress: { inputRequests: { confirm } } }),
      'input_required',
    );
    assert.equal(taskStatus({ status: 'running', progress: { message: 'mining' } }), 'working');
    assert.equal(
      taskStatus({ status: 'failed', toolError: true, reason: 'McpToolError', message: 'no' }),
      'completed',
    );
    assert.equal(taskStatus(resultTooLargeState()), 'failed');
  });
});

describe('workflow task failure causes', () => {
  test('only the size causes (36, 37, 40) mean a run stuck on a result too large', () => {
    for (const cause of [36, 37, 40]) assert.equal(isSizeCause(cause), true, String(cause));
    for (const cause of [0, 1, 35, 38, 39, 41, undefined, null, '36'])
      assert.equal(isSizeCause(cause), false, String(cause));
  });
});
