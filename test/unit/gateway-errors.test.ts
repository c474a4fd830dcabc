// Thrown errors → JSON-RPC errors, and the notes of failed progress queries.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProtocolError } from '@modelcontextprotocol/server';
import { ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  isTaskNotFound,
  loggedMessage,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  missingTasksCapability,
  taskNotFound,
  toProtocolError,
} from '../../gateway/mcp/errors.ts';
import { isTemporalUnavailable, TemporalDeadlineError } from '../../gateway/temporal/errors.ts';
import { queryFailureNote } from '../../gateway/temporal/view.ts';

function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

describe('errors → JSON-RPC', () => {
  test('unknown task: -32602 with the spec message', () => {
    const err = taskNotFound();
    assert.equal(err.code, INVALID_PARAMS);
    assert.equal(err.message, 'Failed to retrieve task: Task not found');
    assert.ok(isTaskNotFound(err));
    assert.equal(isTaskNotFound(new ProtocolError(INVALID_PARAMS, 'Task not found')), false);
  });

  test('missing Tasks capability: -32021 naming the extension', () => {
    const err = missingTasksCapability();
    assert.equal(err.code, MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert.deepEqual(err.data, {
      requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
  });

  test('protocol errors pass through; Temporal not-found is the unknown-task error', () => {
    const own = new ProtocolError(INVALID_PARAMS, 'bad');
    assert.equal(toProtocolError(own), own);
    const missing = toProtocolError(new WorkflowNotFoundError('not found', 'mine-x', undefined));
    assert.equal(missing.code, INVALID_PARAMS);
    assert.equal(missing.message, taskNotFound().message);
  });

  test('Temporal unreachable or too slow: -32603 saying so', () => {
    for (const cause of [
      grpcError(14, 'No connection established'),
      grpcError(4, 'Deadline exceeded'),
      new TemporalDeadlineError(4_000),
    ]) {
      const wrapped = new ServiceError('Failed to start Workflow', { cause });
      assert.ok(isTemporalUnavailable(wrapped));
      const err = toProtocolError(wrapped);
      assert.equal(err.code, INTERNAL_ERROR);
      assert.match(err.message, /Temporal is unreachable/);
      assert.deepEqual(err.data, { reason: 'temporal_unavailable' });
    }
  });

  test('anything else: -32603 "Internal error", its text kept for the log only', () => {
    const err = toProtocolError(new Error('boom at 10.0.0.7:7233'));
    assert.equal(err.code, INTERNAL_ERROR);
    assert.equal(err.message, 'Internal error');
    assert.deepEqual(err.data, { reason: 'internal' });
    assert.equal(loggedMessage(err), 'Internal error: boom at 10.0.0.7:7233');
    assert.equal(isTemporalUnavailable(grpcError(3, 'invalid argument')), false);
  });
});

describe('progress query failures', () => {
  test('no poller, or no answer before the deadline: the note says no worker is polling', () => {
    for (const cause of [
      grpcError(9, 'no poller seen for task queue recently, worker may be down'),
      grpcError(4, 'Deadline exceeded'),
    ]) {
      const note = queryFailureNote(
        new ServiceError('Failed to query Workflow', { cause }),
        'mcp-mining',
        1_500,
      );
      assert.match(note, /no worker is polling task queue "mcp-mining"/);
      assert.match(note, /1\.5 s/);
    }
  });

  test('other query failures name their cause', () => {
    const note = queryFailureNote(new Error('Query handler not found'), 'q', 1_000);
    assert.match(note, /progress is unavailable right now \(Query handler not found\)/);
  });
});
