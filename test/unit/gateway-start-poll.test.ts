// Execution state → the start/poll JSON of the tool contract.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CallToolResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  notFoundJson,
  pollAfterSeconds,
  secondsText,
  startPollJson,
  toolResult,
} from '../../gateway/mcp/start-poll.ts';
import {
  BROKEN,
  CANCELLED,
  CHAIN,
  COMPLETED,
  MINING,
  NO_WORKER,
  REPORT,
  RUNNING,
  TOOL_ERROR,
  view,
  WAITING_FOR_INPUT,
} from '../support/gateway-fixtures.ts';

const json = (state: Parameters<typeof view>[0]) =>
  startPollJson(view(state, 'mine-abc'), MINING, 2_500) as unknown as Record<string, unknown>;

describe('start/poll JSON', () => {
  test('completed carries the workflow id and the result', () => {
    assert.deepEqual(json(COMPLETED), { status: 'completed', workflow_id: 'mine-abc', result: CHAIN });
  });

  test('running tells the agent to wait poll_after_seconds and poll with the exact id', () => {
    const running = json(RUNNING);
    assert.equal(running.status, 'running');
    assert.equal(running.poll_after_seconds, 2.5);
    assert.match(String(running.next), /Wait 2\.5 seconds, then call/);
    assert.deepEqual(running.progress, {
      phase: 'mining',
      blocks_done: 1,
      blocks_total: 3,
      hashes_tried: 4_000_100,
      current_block: 1,
      current_block_nonce: 99,
    });
    assert.match(String(running.next), /get_mining_result/);
    assert.match(String(running.next), /"mine-abc"/);
    assert.match(String(running.next), /[Dd]o not call start_mining again/);
  });

  test('running without a worker has no progress, and a note saying why', () => {
    const running = json(NO_WORKER);
    assert.equal(running.status, 'running');
    assert.equal(running.progress, null);
    assert.match(String(running.note), /no worker is polling/);
  });

  test('input_required lists the requests', () => {
    const waiting = json(WAITING_FOR_INPUT);
    assert.equal(waiting.status, 'input_required');
    assert.deepEqual(Object.keys(waiting.input_requests as object), ['approve-publish-1']);
    assert.match(String(waiting.next), /respond_to_mining/);
  });

  test('failed (tool error or broken run) says why and tells the agent to stop', () => {
    for (const state of [TOOL_ERROR, BROKEN]) {
      const failed = json(state);
      assert.equal(failed.status, 'failed');
      assert.equal(typeof failed.reason, 'string');
      assert.equal(typeof (failed.error as { message: string }).message, 'string');
      assert.match(String(failed.next), /Stop polling/);
    }
  });

  test('cancelled and not_found are distinct from failed', () => {
    assert.equal(json(CANCELLED).status, 'cancelled');
    const missing = notFoundJson('mine-nope', MINING) as unknown as Record<string, unknown>;
    assert.equal(missing.status, 'not_found');
    assert.equal(missing.workflow_id, 'mine-nope');
    assert.match(String(missing.next), /Do not poll it again/);
  });

  test('poll_after_seconds is the interval the server wants, in grammatical text', () => {
    assert.equal(pollAfterSeconds(100), 0.1);
    assert.equal(pollAfterSeconds(250), 0.25);
    assert.equal(pollAfterSeconds(500), 0.5);
    assert.equal(pollAfterSeconds(2_000), 2);
    assert.equal(secondsText(1), '1 second');
    assert.equal(secondsText(0.5), '0.5 seconds');
    const second = startPollJson(view(RUNNING), MINING, 1_000) as { next?: string };
    assert.match(String(second.next), /Wait 1 second, then/);
  });
});

describe('start/poll JSON of a catalog tool', () => {
  const report = (state: Parameters<typeof view>[0]) =>
    startPollJson(view(state, 'start_report-abc'), REPORT, 500) as unknown as Record<string, unknown>;

  test('running shows the contract progress and names the generic companions', () => {
    const running = report({
      status: 'running',
      progress: { message: 'Step 2 of 5', progress: 1, total: 5 },
    });
    assert.deepEqual(running.progress, { progress: 1, total: 5, message: 'Step 2 of 5' });
    assert.match(String(running.next), /^Still running: Step 2 of 5\. /);
    assert.match(String(running.next), /call get_report_result with workflow_id "start_report-abc"/);
    assert.match(String(running.next), /Do not call start_report again/);
  });

  test('a workflow without a progress query shows no progress', () => {
    const running = report({ status: 'running' });
    assert.equal(running.progress, null);
    assert.match(String(running.next), /^Still running\. /);
  });

  test('input_required names the respond companion; not_found the start tool', () => {
    assert.match(String(report(WAITING_FOR_INPUT).next), /respond_to_report/);
    const missing = notFoundJson('start_report-x', REPORT) as unknown as Record<string, unknown>;
    assert.match(String(missing.next), /No run has this workflow_id/);
    assert.match(String(missing.next), /call start_report/);
  });

  test('a result of any JSON type is the result field', () => {
    for (const result of [42, 'text', [1, 2], { a: 1 }, null]) {
      assert.deepEqual(report({ status: 'completed', result }).result, result);
    }
  });
});

describe('CallToolResult carrying start/poll JSON', () => {
  test('structuredContent and a text block hold the same JSON', () => {
    const result = toolResult(startPollJson(view(RUNNING), MINING, 2_000), MINING);
    const text = result.content[0];
    assert.ok(text && text.type === 'text');
    assert.deepEqual(JSON.parse(text.text), result.structuredContent);
    assert.equal(result.isError, undefined);
    assert.ok(CallToolResultV2Schema.safeParse({ ...result, resultType: 'complete' }).success);
  });

  test('failed and not_found are tool errors; running, completed and cancelled are not', () => {
    assert.equal(toolResult(startPollJson(view(BROKEN), MINING, 2_000), MINING).isError, true);
    assert.equal(toolResult(notFoundJson('x', MINING), MINING).isError, true);
    for (const state of [RUNNING, COMPLETED, CANCELLED]) {
      assert.equal(toolResult(startPollJson(view(state), MINING, 2_000), MINING).isError, undefined);
    }
  });
});
