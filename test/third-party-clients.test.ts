// Third-party MCP clients, pinned, against the real stack (dev server, worker process, the gateway
// over HTTP): the Python `mcp` SDK (ClientSession on 2025-11-25, Client on 2026-07-28), fastmcp
// with and without fastmcp-tasks, and the MCP Inspector's CLI. Each Python client runs as a
// script of test/fixtures/python/clients and prints what it saw as one JSON object; the tests
// assert on that, and on what Temporal holds for the same runs.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { TASKS_EXTENSION } from '../gateway/shared/protocol.ts';
import type { ChainResult } from '../workflows/mining/types.ts';
import { calibrate, difficultyFor } from './support/gateway-difficulty.ts';
import type { TestGateway } from './support/gateway-server.ts';
import { startTestStack, type TestStack } from './support/stack.ts';
import {
  type ClientAnswer,
  type ClientPlan,
  runInspector,
  runPythonClient,
  type Scenario,
  scenario,
  testPython,
} from './support/third-party-clients.ts';

const TOOLS = ['cancel_mining', 'get_mining_result', 'respond_to_mining', 'start_mining'];
const KEY = 'approve-publish-1';
/** Short, so slow jobs of a few seconds show the long-call paths. */
const WAIT_BUDGET_MS = 500;
const POLL_INTERVAL_MS = 500;
/**
 * What the clients are told to wait between polls: the interval, exactly. The advice is held fixed
 * here (no jitter, one interval for every state): this file proves the clients follow what they are
 * told; adaptive-polling.test.ts proves how the advice follows the run.
 */
const POLL_AFTER_SECONDS = POLL_INTERVAL_MS / 1000;
const FIXED_ADVICE = { MCP_POLL_JITTER_PERCENT: '0', MCP_POLL_INPUT_INTERVAL_MS: String(POLL_INTERVAL_MS) };

let stack: TestStack | undefined;
let gateway: TestGateway;
/** Same stack, a wait budget no small job outlasts: where calls are meant to answer inline. */
let inline: TestGateway;
let plan: ClientPlan;
const started = Date.now();

before(
  async () => {
    // The venv (made on first use, about half a minute) is set up while the stack starts.
    const python = testPython();
    python.catch(() => {});
    stack = await startTestStack('third-party-clients', {
      waitBudgetMs: WAIT_BUDGET_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
      env: FIXED_ADVICE,
    });
    gateway = stack.gateway;
    inline = await stack.extraGateway({
      waitBudgetMs: 30_000,
      pollIntervalMs: POLL_INTERVAL_MS,
      env: FIXED_ADVICE,
    });
    const speed = await calibrate(gateway.url);
    plan = {
      url: gateway.url.href,
      inline_url: inline.url.href,
      // Ten blocks of about 0.5 s as calibrated (the warm miner is often faster): seconds, well
      // past the budget, on a quiet machine too.
      slow: { difficulty: difficultyFor(speed, 0.5), blocks: 10, data: 'third-party clients' },
      // Mining is instant; the run then waits for the person.
      approval: { difficulty: 6, blocks: 2, data: 'needs a yes', require_approval: true },
      // Seconds of mining past the budget, then the question: the task exists before the run asks
      // (a question within the budget is an input_required result first, SEP-2663).
      approval_later: {
        difficulty: difficultyFor(speed, 0.5),
        blocks: 4,
        data: 'needs a yes, later',
        require_approval: true,
      },
      // Minutes of work: only ever cancelled.
      endless: { difficulty: difficultyFor(speed, 120), blocks: 1 },
      deadline_s: 60,
    };
    await python;
    console.log(
      `miner: ${Math.round(speed.hashesPerSecond)} hashes/s; slow jobs at difficulty ${plan.slow.difficulty}; ` +
        `ready after ${Date.now() - started} ms`,
    );
  },
  { timeout: 600_000 },
);

after(async () => {
  await stack?.close();
  console.log(`third-party clients: ${Date.now() - started} ms in all`);
});

/** What Temporal holds as the run's result. */
function chainOf(workflowId: string): Promise<ChainResult> {
  assert.ok(stack);
  return stack.temporal.client.workflow.getHandle(workflowId).result();
}

async function temporalStatus(workflowId: string): Promise<string> {
  assert.ok(stack);
  return (await stack.temporal.client.workflow.getHandle(workflowId).describe()).status.name;
}

async function runClient(script: string): Promise<ClientAnswer> {
  const answer = await runPythonClient(script, plan);
  const timings = Object.entries(answer.scenarios)
    .map(([name, seen]) => `${name} ${seen.seconds} s${seen.error ? ' (failed)' : ''}`)
    .join(', ');
  console.log(`${answer.client} ${answer.version}: ${answer.ms} ms (${timings})`);
  return answer;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => value as Json;

/** A start/poll running handle as every client should see it. */
function assertRunningHandle(handle: Json) {
  assert.equal(handle.status, 'running', JSON.stringify(handle));
  assert.match(String(handle.workflow_id), /^mine-/);
  assert.equal(handle.poll_after_seconds, POLL_AFTER_SECONDS);
  assert.ok(String(handle.next).includes(`get_mining_result with workflow_id "${handle.workflow_id}"`));
}

/** A poll sequence: running until it ends in `last`. */
function assertStatuses(statuses: unknown, last: string) {
  const seen = statuses as string[];
  assert.equal(seen.at(-1), last, JSON.stringify(seen));
  assert.ok(
    seen.slice(0, -1).every((status) => status === 'running'),
    JSON.stringify(seen),
  );
}

/** cancel_mining waits for the run to end within the budget: cancelled, or still running (the
 * block in flight stops at its next heartbeat, about a second). */
function assertCancelAck(ack: Json) {
  assert.ok(['cancelled', 'running'].includes(String(ack.status)), JSON.stringify(ack));
}

/** A start/poll run cancelled with cancel_mining: a running handle, the ack, cancelled here and in Temporal. */
async function assertCancelledRun(seen: Json) {
  const first = obj(seen.first);
  assertRunningHandle(first);
  assertCancelAck(obj(seen.ack));
  assert.equal(obj(seen.final).status, 'cancelled');
  assert.equal(await temporalStatus(String(first.workflow_id)), 'CANCELLED');
}

async function assertPublished(result: Json) {
  const publication = obj(obj(result).publication);
  assert.equal(publication.status, 'published', JSON.stringify(result));
  assert.ok(existsSync(String(publication.ledgerPath)), 'the ledger file was written');
}

describe('Python mcp 2.3.0 ClientSession, 2025-11-25: start/poll', () => {
  let answer: ClientAnswer;
  before(async () => {
    answer = await runClient('mcp_session_2025.py');
  });

  test('initialize: 2025-11-25 with tools and no Tasks extension; four tools, each with an outputSchema', () => {
    const seen = scenario(answer, 'handshake');
    assert.equal(answer.version, '2.3.0');
    assert.equal(seen.protocol_version, '2025-11-25');
    assert.deepEqual(obj(seen.server_info).name, 'temporal-mcp-gateway');
    const capabilities = obj(seen.capabilities);
    assert.ok(capabilities.tools);
    assert.equal(
      obj(capabilities.extensions ?? {})[TASKS_EXTENSION],
      undefined,
      JSON.stringify(capabilities),
    );
    assert.deepEqual(Object.keys(obj(seen.tools)).sort(), TOOLS);
    for (const [name, tool] of Object.entries(obj(seen.tools)))
      assert.equal(obj(tool).output_schema, true, `${name} has no outputSchema`);
  });

  test('a slow call: progress during the wait, a running handle, get_mining_result until completed', async () => {
    const seen = scenario(answer, 'start_poll');
    const first = obj(seen.first);
    assertRunningHandle(first);
    assert.equal(first._text_is_the_json, true);
    const progress = seen.progress as Json[];
    assert.ok(progress.length >= 1, 'notifications/progress during the wait');
    assert.match(String(progress[0]?.message), /start_mining/);
    assertStatuses(seen.statuses, 'completed');
    const final = obj(seen.final);
    assert.equal(final._is_error, false);
    assert.equal(final._text_is_the_json, true);
    assert.equal(final.workflow_id, first.workflow_id);
    assert.deepEqual(final.result, await chainOf(String(first.workflow_id)));
  });

  test('require_approval: input_required, respond_to_mining approves, the chain is published', async () => {
    const seen = scenario(answer, 'approval');
    const asked = obj(seen.asked);
    assert.equal(asked.status, 'input_required');
    const requests = obj(asked.input_requests);
    assert.deepEqual(Object.keys(requests), [KEY]);
    assert.equal(obj(requests[KEY]).method, 'elicitation/create');
    assert.match(String(asked.next), /respond_to_mining/);
    const final = obj(seen.final);
    assert.equal(final.status, 'completed');
    assert.equal(final._is_error, false);
    await assertPublished(obj(final.result));
  });

  test('cancel_mining: the run ends cancelled, in Temporal too', async () => {
    await assertCancelledRun(scenario(answer, 'cancel'));
  });
});

describe('Python mcp 2.3.0 Client, 2026-07-28', () => {
  let answer: ClientAnswer;
  before(async () => {
    answer = await runClient('mcp_client_2026.py');
  });

  test('server/discover: 2026-07-28 with the Tasks extension; tools/list; a small call answers inline', async () => {
    const seen = scenario(answer, 'discover');
    assert.equal(seen.protocol_version, '2026-07-28');
    assert.deepEqual(obj(obj(seen.capabilities).extensions)[TASKS_EXTENSION], {});
    assert.deepEqual(Object.keys(obj(seen.tools)).sort(), TOOLS);
    const fast = obj(seen.fast);
    assert.equal(fast.is_error, false);
    const structured = obj(fast.structured);
    assert.equal(structured.status, 'completed');
    assert.deepEqual(JSON.parse(String((fast.texts as string[])[0])), structured);
    assert.deepEqual(structured.result, await chainOf(String(structured.workflow_id)));
  });

  test('without the Tasks extension: a running handle, get_mining_result until completed', async () => {
    const seen = scenario(answer, 'start_poll');
    const first = obj(seen.first);
    assertRunningHandle(first);
    assertStatuses(seen.statuses, 'completed');
    assert.deepEqual(obj(seen.final).result, await chainOf(String(first.workflow_id)));
  });

  test('Tasks declared with advertise() only: the task handle reads as text naming the task and how to follow it', async () => {
    // The SDK drops a task result's unknown fields and keeps content (and structuredContent, which
    // it checks against the tool's outputSchema): what remains must still tell the caller what to do.
    const seen = scenario(answer, 'advertised_only');
    assert.equal(seen.is_error, false);
    const text = (seen.texts as string[]).join('\n');
    const [taskId] = seen.ids_in_text as string[];
    assert.ok(taskId, text);
    assert.deepEqual(seen.ids_in_text, [taskId]);
    assert.match(text, /tasks\/get/);
    assert.match(text, /get_mining_result/);
    assertStatuses(seen.statuses, 'completed');
    assert.deepEqual(obj(seen.final).result, await chainOf(taskId));
  });

  test('Tasks through a ResultClaim: task created, tasks/get to input_required, tasks/update answers, completed', async () => {
    const seen = scenario(answer, 'tasks_approval');
    const [created] = seen.created as Json[];
    assert.ok(created);
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.equal(created.pollIntervalMs, POLL_INTERVAL_MS);
    const statuses = seen.statuses as string[];
    assert.ok(statuses.includes('input_required'), JSON.stringify(statuses));
    assert.equal(statuses.at(-1), 'completed');
    const [answered] = seen.answered as Json[];
    assert.deepEqual(obj(answered).keys, [KEY]);
    assert.equal(seen.is_error, false);
    const structured = obj(seen.structured);
    assert.equal(structured.status, 'completed');
    assert.equal(structured.workflow_id, created.taskId);
    await assertPublished(obj(structured.result));
  });

  test('Tasks: tasks/cancel on a claimed task; it ends cancelled, in Temporal too', async () => {
    const seen = scenario(answer, 'tasks_cancel');
    const created = obj(seen.created);
    assert.equal(created.status, 'working');
    assert.equal(obj(seen.final).status, 'cancelled');
    assert.equal(await temporalStatus(String(created.taskId)), 'CANCELLED');
  });
});

describe('fastmcp 4.1.4 Client (no Tasks): start/poll, read through .data', () => {
  let answer: ClientAnswer;
  before(async () => {
    answer = await runClient('fastmcp_start_poll.py');
  });

  test('a slow call: .data typed from the outputSchema, a running handle, polled to completed', async () => {
    const seen = scenario(answer, 'start_poll');
    assert.equal(answer.version, '4.1.4');
    assert.equal(seen.protocol_version, '2026-07-28');
    const first = obj(seen.first);
    assert.equal(
      first.data_is_dict,
      false,
      `.data is ${first.data_type}, not an object built from the schema`,
    );
    assertRunningHandle(first);
    assert.deepEqual(obj(first.structured).workflow_id, first.workflow_id);
    assert.ok((seen.progress as Json[]).length >= 1, 'notifications/progress during the wait');
    assertStatuses(seen.statuses, 'completed');
    const chain = obj(seen.chain);
    assert.equal(chain.is_dict, false, '.data.result is typed too');
    assert.equal(chain.difficulty_type, 'int');
    const temporal = await chainOf(String(first.workflow_id));
    assert.equal(chain.difficulty, temporal.difficulty);
    assert.equal(chain.final_hash, temporal.finalHash);
    assert.deepEqual(
      chain.block_hashes,
      temporal.blocks.map((block) => block.hash),
    );
  });

  test('require_approval: input_required, respond_to_mining approves, .data shows it published', () => {
    const seen = scenario(answer, 'approval');
    const asked = obj(seen.asked);
    assert.equal(asked.status, 'input_required');
    assert.deepEqual(Object.keys(obj(obj(asked.structured).input_requests)), [KEY]);
    assert.equal(obj(seen.final).status, 'completed');
    assert.equal(seen.publication_status, 'published');
  });

  test('cancel_mining: the run ends cancelled', async () => {
    await assertCancelledRun(scenario(answer, 'cancel'));
  });
});

describe('fastmcp 4.1.4 + fastmcp-tasks 4.1.4: Tasks', () => {
  let answer: ClientAnswer;
  before(async () => {
    answer = await runClient('fastmcp_tasks_client.py');
  });

  /** Every exchange answered 200; tasks/* go without Mcp-Name (the gateway reads the task id from the body). */
  function assertWire(seen: Scenario, methods: string[]) {
    const wire = seen.wire as { method: string; mcp_name: string | null; http_status: number }[];
    for (const method of methods)
      assert.ok(
        wire.some((exchange) => exchange.method === method),
        `${method} sent: ${JSON.stringify(wire)}`,
      );
    for (const exchange of wire) {
      assert.equal(exchange.http_status, 200, JSON.stringify(exchange));
      if (exchange.method.startsWith('tasks/')) assert.equal(exchange.mcp_name, null);
    }
  }

  test('call_tool on a slow job: the Client follows the task (tasks/get) and returns the typed result', async () => {
    const seen = scenario(answer, 'transparent');
    assert.equal(answer.version, '4.1.4');
    assert.equal(seen.protocol_version, '2026-07-28');
    const result = obj(seen.result);
    assert.equal(result.status, 'completed');
    assert.notEqual(result.data_type, 'dict');
    const temporal = await chainOf(String(result.workflow_id));
    assert.equal(result.final_hash, temporal.finalHash);
    assert.deepEqual(obj(result.structured).result, temporal);
    assertWire(seen, ['tools/call', 'tasks/get']);
  });

  test('call_tool_task with approval: created, polled to input_required, answered through the elicitation handler, completed', async () => {
    const seen = scenario(answer, 'tasks_approval');
    const created = obj(seen.created);
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.equal(created.pollIntervalMs, POLL_INTERVAL_MS);
    const waiting = obj(seen.waiting);
    assert.equal(waiting.status, 'input_required');
    assert.deepEqual(Object.keys(obj(waiting.inputRequests)), [KEY]);
    const [elicited] = seen.elicited as Json[];
    assert.match(String(obj(elicited).message), /^Publish the mined chain/);
    assert.equal((seen.elicited as Json[]).length, 1);
    const result = obj(seen.result);
    assert.equal(result.status, 'completed');
    assert.equal(result.publication_status, 'published');
    await assertPublished(obj(obj(result.structured).result));
    assert.equal(obj(seen.final).status, 'completed');
    assertWire(seen, ['tools/call', 'tasks/get', 'tasks/update']);
  });

  test('a task keeps its createdAt, and its lastUpdatedAt never goes back', () => {
    const seen = scenario(answer, 'tasks_approval');
    const created = obj(seen.created);
    const waiting = obj(seen.waiting);
    assert.equal(waiting.createdAt, created.createdAt);
    assert.ok(
      Date.parse(String(waiting.lastUpdatedAt)) >= Date.parse(String(created.lastUpdatedAt)),
      `lastUpdatedAt ${created.lastUpdatedAt} (created) then ${waiting.lastUpdatedAt} (tasks/get)`,
    );
  });

  test('ToolTask.cancel: tasks/cancel, the task ends cancelled, result() raises', async () => {
    const seen = scenario(answer, 'tasks_cancel');
    assert.equal(obj(seen.created).status, 'working');
    const final = obj(seen.final);
    assert.equal(final.status, 'cancelled');
    assert.match(String(seen.result_raised), /ToolError: .*cancelled/);
    assert.equal(await temporalStatus(String(seen.task_id)), 'CANCELLED');
    assertWire(seen, ['tools/call', 'tasks/cancel', 'tasks/get']);
  });
});

describe('MCP Inspector 2.12.0 CLI', () => {
  test('tools/list: the four tools, each with an outputSchema; --strict finds no portability errors', async () => {
    const [listed, strict] = await Promise.all([
      runInspector(gateway.url, ['--method', 'tools/list']),
      runInspector(gateway.url, ['--method', 'tools/list', '--strict']),
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    const tools = obj(listed.json?.result).tools as Json[];
    assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS);
    for (const tool of tools) assert.ok(tool.outputSchema, `${tool.name} has no outputSchema`);
    assert.equal(strict.code, 0, strict.stderr);
    assert.match(strict.stderr, /\b0 errors\b/);
    console.log(`inspector tools/list: ${listed.ms} ms; --strict: ${strict.ms} ms`);
  });

  test('tools/call (2025-11-25): a small job inline; a slow one a running handle, then get_mining_result completed', async () => {
    const [small, slow] = await Promise.all([
      runInspector(inline.url, [
        '--method',
        'tools/call',
        '--tool-name',
        'start_mining',
        '--tool-arg',
        'difficulty=8',
        'blocks=2',
      ]),
      runInspector(gateway.url, [
        '--method',
        'tools/call',
        '--tool-name',
        'start_mining',
        '--tool-args-json',
        JSON.stringify(plan.slow),
      ]),
    ]);
    assert.equal(small.code, 0, small.stderr);
    const done = obj(obj(small.json?.result).structuredContent);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, await chainOf(String(done.workflow_id)));

    assert.equal(slow.code, 0, slow.stderr);
    const handle = obj(obj(slow.json?.result).structuredContent);
    assertRunningHandle(handle);
    const id = String(handle.workflow_id);
    const chain = await chainOf(id);
    const polled = await runInspector(gateway.url, [
      '--method',
      'tools/call',
      '--tool-name',
      'get_mining_result',
      '--tool-args-json',
      JSON.stringify({ workflow_id: id }),
    ]);
    assert.equal(polled.code, 0, polled.stderr);
    const final = obj(obj(polled.json?.result).structuredContent);
    assert.equal(final.status, 'completed');
    assert.deepEqual(final.result, chain);
    console.log(`inspector tools/call: ${small.ms} ms, ${slow.ms} ms, ${polled.ms} ms`);
  });

  test('--protocol-era modern (2026-07-28): tools/list, and tools/call follows a slow job as a task to completed', async () => {
    const [listed, called] = await Promise.all([
      runInspector(gateway.url, ['--protocol-era', 'modern', '--method', 'tools/list']),
      runInspector(gateway.url, [
        '--protocol-era',
        'modern',
        '--method',
        'tools/call',
        '--tool-name',
        'start_mining',
        '--tool-args-json',
        JSON.stringify(plan.slow),
      ]),
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((obj(listed.json?.result).tools as Json[]).map((tool) => tool.name).sort(), TOOLS);
    assert.equal(called.code, 0, called.stderr);
    const final = obj(obj(called.json?.result).structuredContent);
    assert.equal(final.status, 'completed', JSON.stringify(called.json));
    const id = String(final.workflow_id);
    assert.deepEqual(final.result, await chainOf(id));
    // Completed although the run outlasted the wait budget: the Inspector followed the task.
    assert.ok(stack);
    const run = await stack.temporal.client.workflow.getHandle(id).describe();
    const ranMs = (run.closeTime?.getTime() ?? 0) - run.startTime.getTime();
    assert.ok(ranMs > WAIT_BUDGET_MS, `the run took ${ranMs} ms`);
    console.log(`inspector modern: tools/list ${listed.ms} ms, tools/call ${called.ms} ms`);
  });
});
