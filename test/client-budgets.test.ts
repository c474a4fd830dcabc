// Wait budgets that follow the client: MCP_CLIENT_WAIT_BUDGETS gives a client (by its clientInfo
// name) a budget of its own, capped by the tool's; a budget at or above the common 60 s client
// timeout is warned about at start; and a caller that leaves before its budget ends is counted
// (caller_gone, the signal to lower the budget) while its run goes on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitBudgetFor } from '../gateway/mcp/call-wait.ts';
import { clientWaitBudgetsFromEnv } from '../gateway/settings/budgets.ts';
import { budgetWarnings, loadSettings } from '../gateway/settings/index.ts';
import { calibrate, difficultyFor } from './support/gateway-difficulty.ts';
import { type Framing, framedHeaders, framedRequest, rpc, WITH_TASKS } from './support/mcp-http.ts';
import { delta, scrape } from './support/metrics-scrape.ts';
import { startTestStack, type TestStack } from './support/stack.ts';
import { eventually } from './support/temporal.ts';

const client = (name: string): Framing => ({
  clientInfo: { name, version: '1.0.0' },
  clientCapabilities: WITH_TASKS,
});

describe('client wait budgets, as settings', () => {
  test('client-name=ms entries separated by ";", names matched case-insensitively, capped by the tool', () => {
    const budgets = clientWaitBudgetsFromEnv({
      MCP_CLIENT_WAIT_BUDGETS: 'Claude Desktop=200000; mcp-inspector=45000',
    });
    assert.deepEqual(
      [...budgets],
      [
        ['claude desktop', 200_000],
        ['mcp-inspector', 45_000],
      ],
    );
    const tool = { waitBudgetMs: 20_000 };
    assert.equal(waitBudgetFor(tool, 'MCP-Inspector', budgets), 20_000, 'the tool caps the client');
    assert.equal(waitBudgetFor({ waitBudgetMs: 90_000 }, 'mcp-inspector', budgets), 45_000);
    assert.equal(waitBudgetFor(tool, 'another', budgets), 20_000);
    assert.equal(waitBudgetFor(tool, undefined, budgets), 20_000);
    for (const bad of ['claude', '=5', 'x=-1', 'x=700000', 'x=1;X=2']) {
      assert.throws(
        () => clientWaitBudgetsFromEnv({ MCP_CLIENT_WAIT_BUDGETS: bad }),
        /MCP_CLIENT_WAIT_BUDGETS/,
        bad,
      );
    }
  });

  test('a budget at or above 60 s is warned about at start, naming the trap; the defaults are not', async () => {
    assert.deepEqual(budgetWarnings(await loadSettings({})), []);
    const warned = budgetWarnings(
      await loadSettings({
        MCP_WAIT_BUDGET_MS: '60000',
        MCP_CLIENT_WAIT_BUDGETS: 'desktop=240000;sdk=30000',
      }),
    );
    assert.equal(warned.length, 2, warned.join('\n'));
    assert.match(
      warned[0] ?? '',
      /^MCP_WAIT_BUDGET_MS is 60000 ms, at or above 60000 ms: .*report a failure while the run goes on/,
    );
    assert.match(warned[1] ?? '', /^the wait budget of client "desktop" is 240000 ms/);
  });
});

describe('client wait budgets, on the real stack', () => {
  let stack: TestStack;
  /** Blocks of about 0.5 s. */
  let difficulty: number;

  before(async () => {
    stack = await startTestStack('client-budgets', {
      waitBudgetMs: 8_000,
      env: { MCP_CLIENT_WAIT_BUDGETS: 'hasty-client=200' },
    });
    difficulty = difficultyFor(await calibrate(stack.gateway.url), 0.5);
  });

  after(async () => {
    await stack?.close();
  });

  const mine = (data: string) => ({ name: 'start_mining', arguments: { difficulty, blocks: 4, data } });

  test('a client with a budget of its own gets its task after that budget; another waits the tool’s and gets the result', async () => {
    const sent = Date.now();
    const hasty = await rpc(stack.gateway.url, 'tools/call', mine('hasty'), client('hasty-client'));
    const hastyMs = Date.now() - sent;
    assert.equal(hasty.result?.resultType, 'task', JSON.stringify(hasty));
    assert.ok(hastyMs < 4_000, `answered after ${hastyMs} ms, not the tool's 8 s`);
    const patient = await rpc(stack.gateway.url, 'tools/call', mine('patient'), client('patient-client'));
    assert.equal(patient.result?.resultType, 'complete', JSON.stringify(patient));
    assert.equal((patient.result?.structuredContent as { status?: string } | undefined)?.status, 'completed');
    await rpc(stack.gateway.url, 'tasks/cancel', { taskId: hasty.result?.taskId }, client('hasty-client'));
  });

  test('a caller that leaves before its budget ends is counted as caller_gone, and its run goes on to completion', async () => {
    const before = await scrape(stack.gateway.origin);
    const startedAfter = new Date().toISOString();
    const leave = new AbortController();
    const params = mine('left early');
    const call = fetch(stack.gateway.url, {
      method: 'POST',
      headers: framedHeaders('tools/call', params),
      body: JSON.stringify(framedRequest('tools/call', params, client('patient-client'))),
      signal: leave.signal,
    });
    const query = `McpTool = "start_mining" AND StartTime > "${startedAfter}"`;
    const [run] = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const found of stack.temporal.client.workflow.list({ query })) ids.push(found.workflowId);
        return ids.length > 0 ? ids : undefined;
      },
      10_000,
      'the run to start',
      100,
    );
    leave.abort();
    await call.catch(() => {});
    const gone = await eventually(
      async () => {
        const now = await scrape(stack.gateway.origin);
        const counted = delta(before, now, 'mcp_gateway_wait_duration_seconds_count', {
          outcome: 'caller_gone',
        });
        return counted > 0 ? counted : undefined;
      },
      5_000,
      'the wait to be counted as caller_gone',
    );
    assert.equal(gone, 1);
    const result = (await stack.temporal.client.workflow.getHandle(String(run)).result()) as {
      blocks: unknown[];
    };
    assert.equal(result.blocks.length, 4, 'the run went on without its caller');
  });
});
