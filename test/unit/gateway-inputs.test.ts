// Tool argument schemas, task ids, capability detection and configuration.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_BLOCKS,
  DEFAULT_DIFFICULTY,
  mineChainInput,
  miningTool,
} from '../../catalog/mining/entry.ts';
import { workflowIdArgs } from '../../gateway/mcp/companions.ts';
import { inputResponsesSchema } from '../../gateway/mcp/input-rounds.ts';
import { declaresTasksExtension } from '../../gateway/mcp/method-context.ts';
import { validated } from '../../gateway/mcp/tools-call.ts';
import { loadSettings } from '../../gateway/settings/index.ts';
import {
  isOwnedBy,
  isTaskOfRun,
  namesNoRun,
  newTaskId,
  runTaskId,
  slotOf,
  slotTaskId,
  slotWorkflowId,
  taskIdPrefix,
  taskKey,
  taskRun,
  taskSlot,
} from '../../gateway/temporal/task-ids.ts';
import { LIMITS } from '../../workflows/mining/bounds.ts';

const mining = miningTool({ taskQueue: 'q', waitBudgetMs: 1_000 });
const check = (args: unknown) => validated<Record<string, unknown>>(mining.validateArguments, args);

describe('start_mining arguments', () => {
  test('the bounds are the workflow LIMITS', async () => {
    const ok = { difficulty: LIMITS.difficulty.max, blocks: LIMITS.blocks.max };
    assert.doesNotThrow(() => check(ok));
    for (const bad of [
      { difficulty: LIMITS.difficulty.max + 1, blocks: 1 },
      { difficulty: LIMITS.difficulty.min - 1, blocks: 1 },
      { difficulty: 8.5, blocks: 1 },
      { difficulty: 8, blocks: LIMITS.blocks.max + 1 },
      { difficulty: 8, blocks: 1, data: 'x'.repeat(LIMITS.dataMaxLength + 1) },
      { difficulty: '8', blocks: 1 },
      { difficulty: 8, blocks: 1, idempotencyKey: 'misspelt' },
    ]) {
      assert.throws(() => check(bad), Error, JSON.stringify(bad).slice(0, 80));
    }
  });

  test('a call without difficulty or blocks gets the defaults, sized to outlast the wait budget', async () => {
    const parsed = check({});
    assert.equal(parsed.difficulty, DEFAULT_DIFFICULTY);
    assert.equal(parsed.blocks, DEFAULT_BLOCKS);
    assert.equal(DEFAULT_DIFFICULTY, 31);
    assert.equal(DEFAULT_BLOCKS, 3);
    // Even at 200 M hashes/s the default run takes longer than the default budget (20 s, configuration.md).
    assert.ok((DEFAULT_BLOCKS * 2 ** DEFAULT_DIFFICULTY) / 200e6 > 20);
  });

  test('errors name the field', async () => {
    assert.throws(() => check({ difficulty: 99, blocks: 1 }), /^Error: difficulty: must be <= 40$/);
    assert.throws(() => check({ blocks: 1, colour: 'red' }), /^Error: colour: is not an allowed field$/);
  });

  test('arguments become the workflow input', async () => {
    assert.deepEqual(mineChainInput({ difficulty: 9, blocks: 2 }), { difficulty: 9, blocks: 2, data: '' });
    assert.deepEqual(mineChainInput({ difficulty: 9, blocks: 2, data: 'x', require_approval: true }), {
      difficulty: 9,
      blocks: 2,
      data: 'x',
      requireApproval: true,
    });
  });

  test('the listed input schema is a JSON Schema object with the bounds', async () => {
    const schema = mining.inputSchema as {
      type: string;
      properties: Record<string, Record<string, unknown>>;
    };
    assert.equal(schema.type, 'object');
    assert.equal(schema.properties.difficulty?.maximum, LIMITS.difficulty.max);
    assert.equal(schema.properties.blocks?.minimum, LIMITS.blocks.min);
  });

  test('workflow_id is required', async () => {
    const args = workflowIdArgs('start_mining');
    assert.equal(args.safeParse({}).success, false);
    assert.ok(args.safeParse({ workflow_id: 'mine-x' }).success);
  });

  test('input responses: action is one of accept, decline, cancel', async () => {
    assert.ok(
      inputResponsesSchema.safeParse({ k: { action: 'accept', content: { approve: true } } }).success,
    );
    assert.equal(inputResponsesSchema.safeParse({ k: { action: 'maybe' } }).success, false);
  });
});

describe('task ids', () => {
  const secret = Buffer.from('s'.repeat(40));
  test('carry 128 random bits and never repeat', async () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newTaskId(secret, 'alice', 'mine')));
    assert.equal(ids.size, 10_000);
    for (const id of [...ids].slice(0, 100)) {
      assert.match(id, /^mine-[A-Za-z0-9_-]{32}$/);
      assert.equal(taskIdPrefix(id), 'mine');
      const bytes = Buffer.from(id.slice('mine-'.length), 'base64url');
      assert.equal(bytes.length, 24, 'a 128-bit body and a 64-bit owner tag');
    }
  });

  test('name their owner: only the principal they were issued to, under the same secret', async () => {
    const id = newTaskId(secret, 'alice', 'mine');
    assert.equal(isOwnedBy(secret, 'alice', id), true);
    assert.equal(isOwnedBy(secret, 'bob', id), false);
    assert.equal(isOwnedBy(Buffer.from('t'.repeat(40)), 'alice', id), false);
  });

  test('carry the id prefix of their tool, which may itself hold dashes', async () => {
    const id = newTaskId(secret, 'alice', 'start_report-v2');
    assert.equal(taskIdPrefix(id), 'start_report-v2');
    assert.equal(isOwnedBy(secret, 'alice', id), true);
    assert.equal(taskIdPrefix('mine-short'), undefined);
  });

  test('under the cap add their slot and run, covered by a tag of their own; the key before the dot is the McpTaskId', async () => {
    const key = newTaskId(secret, 'alice', 'start_report-v2');
    const runId = '0194f1c2-7a3b-7c4d-8e5f-a0b1c2d3e4f5';
    const id = runTaskId(secret, key, { slot: 7, runId });
    assert.match(id, /^start_report-v2-[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{35}$/);
    assert.equal(id.slice(0, id.lastIndexOf('.')), key);
    assert.equal(taskKey(id), key);
    assert.equal(taskIdPrefix(id), 'start_report-v2');
    assert.equal(taskSlot(id), 7);
    assert.equal(isOwnedBy(secret, 'alice', id), true);
    assert.equal(isOwnedBy(secret, 'bob', id), false);
    assert.deepEqual(taskRun(secret, 'alice', id), { workflowId: slotWorkflowId(secret, 'alice', 7), runId });
    assert.notEqual(slotWorkflowId(secret, 'alice', 7), slotWorkflowId(secret, 'bob', 7));
    assert.equal(slotOf(secret, 'alice', slotWorkflowId(secret, 'alice', 7)), 7);
    assert.equal(slotOf(secret, 'bob', slotWorkflowId(secret, 'alice', 7)), undefined);
    // Without a slot the key is the run's own workflow id and the id as it is.
    assert.equal(runTaskId(secret, key, { runId }), key);
    assert.deepEqual(taskRun(secret, 'alice', key), { workflowId: key });
    // Another slot or run under the same key, without its tag: nobody's.
    const part = Buffer.from(id.slice(id.lastIndexOf('.') + 1), 'base64url');
    for (const at of [1, 5]) {
      const changed = Buffer.from(part);
      changed[at] = (changed[at] as number) ^ 1;
      assert.equal(isOwnedBy(secret, 'alice', `${key}.${changed.toString('base64url')}`), false);
    }
    assert.equal(
      isOwnedBy(
        secret,
        'alice',
        `${newTaskId(secret, 'alice', 'start_report-v2')}.${part.toString('base64url')}`,
      ),
      false,
    );
  });

  test('an unconfirmed start names key and slot without a run (~); a run started when ids had that form is still its task', async () => {
    const key = newTaskId(secret, 'alice', 'mine');
    const id = slotTaskId(secret, 'alice', key, 3);
    assert.match(id, /^mine~[A-Za-z0-9_-]{35}$/);
    assert.equal(isOwnedBy(secret, 'alice', id), true);
    assert.equal(isOwnedBy(secret, 'bob', id), false);
    assert.equal(namesNoRun(id), true);
    assert.equal(namesNoRun(key), false);
    assert.deepEqual(taskRun(secret, 'alice', id), { workflowId: slotWorkflowId(secret, 'alice', 3) });
    assert.equal(isTaskOfRun(secret, 'alice', id, key), true, 'a run started with the key');
    assert.equal(isTaskOfRun(secret, 'alice', id, id), true, 'a run started when the id was its key');
    assert.equal(isTaskOfRun(secret, 'alice', id, newTaskId(secret, 'alice', 'mine')), false);
    assert.equal(isTaskOfRun(secret, 'bob', id, key), false);
  });

  test("a changed, cut, padded or foreign-shaped id is nobody's", async () => {
    const id = newTaskId(secret, 'alice', 'mine');
    const last = id.at(-1) === 'A' ? 'B' : 'A';
    const body = id.slice('mine-'.length);
    for (const forged of [
      `${id.slice(0, -1)}${last}`,
      `${id.slice(0, 12)}${id[12] === 'A' ? 'B' : 'A'}${id.slice(13)}`,
      id.slice(0, -2),
      `${id}A`,
      `${id.slice(0, 20)}*${id.slice(20)}`,
      `task-${body}`,
      body,
      'mine-unknown',
      '',
    ]) {
      assert.equal(isOwnedBy(secret, 'alice', forged), false, forged);
    }
  });
});

describe('Tasks extension in client capabilities', () => {
  test('declared only by an extensions entry', async () => {
    assert.equal(
      declaresTasksExtension({ extensions: { 'io.modelcontextprotocol/tasks': {} } } as never),
      true,
    );
    assert.equal(declaresTasksExtension({ extensions: {} } as never), false);
    assert.equal(declaresTasksExtension({} as never), false);
    assert.equal(declaresTasksExtension(undefined), false);
  });
});

describe('configuration', () => {
  test('defaults', async () => {
    const config = await loadSettings({});
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 3000);
    assert.equal(config.waitBudgetMs, 20_000);
    assert.equal(config.pollIntervalMs, 2000);
    assert.equal(config.temporal.taskQueue, 'mcp-mining');
  });

  test('from the environment', async () => {
    const config = await loadSettings({
      MCP_HOST: '0.0.0.0',
      MCP_AUTH_TOKENS: 'alice:alice-token-0123456789',
      MCP_PORT: '8080',
      MCP_WAIT_BUDGET_MS: '500',
      MCP_POLL_INTERVAL_MS: '750',
      MCP_TASK_TTL_MS: '120000',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_TASK_QUEUE: 'q',
    });
    assert.deepEqual(
      [config.host, config.port, config.waitBudgetMs, config.pollIntervalMs, config.taskTtlMs],
      ['0.0.0.0', 8080, 500, 750, 120_000],
    );
    assert.equal(config.temporal.address, 'temporal:7233');
    assert.equal(config.temporal.taskQueue, 'q');
  });

  test('bad values are refused with the variable named', async () => {
    await assert.rejects(loadSettings({ MCP_PORT: 'eighty' }), /MCP_PORT/);
    await assert.rejects(loadSettings({ MCP_WAIT_BUDGET_MS: '-1' }), /MCP_WAIT_BUDGET_MS/);
  });
});
