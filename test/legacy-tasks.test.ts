// The 2025-11-25 revision's tasks (SEP-1686) for that revision's clients, driven end to end with the
// MCP TypeScript SDK v1 (1.32.2, pinned) and its `client.experimental.tasks`, and with the Python MCP
// SDK 1.27.2's `session.experimental` (its own venv, .venv-mcp1), against the real stack
// (Temporal dev server, the mining worker, the gateway): a long run followed to its result with its
// progress in tasks/get, a run asking for input answered on the tasks/result stream (an elicitation
// request there, its status pushed) or, by a client that cannot answer it, through the respond
// companion; a cancellation, the caller's own tasks listed, and another principal refused everywhere.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { inputRequestId } from '../gateway/mcp/legacy-task-input.ts';
import { taskHandle } from './support/gateway-server.ts';
import { structured } from './support/mcp-clients.ts';
import { TASKS_CLIENT } from './support/mcp-http.ts';
import { scrape } from './support/metrics-scrape.ts';
import { listen } from './support/sse-listen.ts';
import { startTestStack, type TestStack } from './support/stack.ts';
import { eventually } from './support/temporal.ts';

const TOKENS = { alice: 'alice-legacy-tasks-0123456789abcd', bob: 'bob-legacy-tasks-0123456789abcdef' };
let stack: TestStack;

before(async () => {
  stack = await startTestStack('legacy-tasks', {
    waitBudgetMs: 500,
    // Under the running-task cap, as a gateway runs by default.
    env: { MCP_AUTH_TOKENS: `alice:${TOKENS.alice},bob:${TOKENS.bob}`, MCP_MAX_RUNNING_TASKS: '100' },
  });
});

after(async () => {
  await stack?.close();
});

async function connect(principal: keyof typeof TOKENS, capabilities = {}): Promise<V1Client> {
  const client = new V1Client({ name: 'gateway-test-v1-tasks', version: '1.0.0' }, { capabilities });
  const headers = { authorization: `Bearer ${TOKENS[principal]}` };
  await client.connect(new V1Transport(stack.gateway.url, { requestInit: { headers } }));
  return client;
}

type Message = {
  type: string;
  task?: { taskId: string; status: string; statusMessage?: string };
  result?: unknown;
  error?: Error;
};

/** The id of a task that asks for approval, as its call's first message gives it. */
async function approvalTask(client: V1Client, data: string): Promise<string> {
  const created = await client.experimental.tasks
    .callToolStream(
      { name: 'start_mining', arguments: { difficulty: 4, blocks: 1, require_approval: true, data } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )
    .next();
  return String((created.value as Message).task?.taskId);
}

/** Every message of one task-augmented call, to its end. */
async function follow(client: V1Client, args: Record<string, unknown>): Promise<Message[]> {
  const messages: Message[] = [];
  const stream = client.experimental.tasks.callToolStream(
    { name: 'start_mining', arguments: args },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  );
  for await (const message of stream) messages.push(message as Message);
  return messages;
}

describe('a 2025-11-25 client with tasks (SDK v1 client.experimental.tasks)', () => {
  test('initialize declares the tasks capability for tool calls; tools/list gives task support', async () => {
    const client = await connect('alice');
    try {
      const tasks = (client.getServerCapabilities() as { tasks?: Record<string, unknown> }).tasks;
      assert.deepEqual(tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const { tools } = await client.listTools();
      const mining = tools.find((tool) => tool.name === 'start_mining') as {
        execution?: { taskSupport?: string };
      };
      assert.equal(mining?.execution?.taskSupport, 'optional');
    } finally {
      await client.close();
    }
  });

  test('a long run: a task at once, progress while it works, then its result', async () => {
    const client = await connect('alice');
    try {
      const messages = await follow(client, { difficulty: 22, blocks: 4, data: 'legacy-long' });
      const created = messages[0];
      assert.equal(created?.type, 'taskCreated', JSON.stringify(messages[0]));
      const statuses = messages.filter((m) => m.type === 'taskStatus').map((m) => m.task?.status);
      assert.ok(statuses.includes('working'), `statuses: ${statuses}`);
      assert.ok(
        messages.some((m) => m.type === 'taskStatus' && /block/i.test(m.task?.statusMessage ?? '')),
        'a status message tells the progress',
      );
      const last = messages.at(-1);
      assert.equal(last?.type, 'result', JSON.stringify(last));
      const content = structured(last?.result);
      assert.equal(content.status, 'completed');
      assert.equal(content.workflow_id, created?.task?.taskId);
      const meta = ((last?.result ?? {}) as { _meta?: Record<string, { taskId: string }> })._meta;
      assert.equal(meta?.['io.modelcontextprotocol/related-task']?.taskId, created?.task?.taskId);
    } finally {
      await client.close();
    }
  });

  test('a run asking for input: its request comes on the tasks/result stream; answered there, the task completes', async () => {
    const client = await connect('alice', { elicitation: { form: {} } });
    const asked: { message: string; related?: unknown }[] = [];
    const pushed: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const { message, _meta } = request.params as { message: string; _meta?: Record<string, unknown> };
      asked.push({ message, related: _meta?.['io.modelcontextprotocol/related-task'] });
      return { action: 'accept', content: { approve: true, note: 'from the stream' } };
    });
    client.setNotificationHandler(TaskStatusNotificationSchema, (note) => {
      pushed.push(note.params.status);
    });
    try {
      const messages = await follow(client, {
        difficulty: 4,
        blocks: 1,
        require_approval: true,
        data: 'legacy-stream-input',
      });
      const taskId = String(messages[0]?.task?.taskId);
      assert.equal(asked.length, 1, JSON.stringify(asked));
      assert.match(String(asked[0]?.message), /publish/i);
      assert.deepEqual(asked[0]?.related, { taskId });
      const last = messages.at(-1);
      assert.equal(last?.type, 'result', JSON.stringify(last));
      const content = structured(last?.result);
      assert.equal(content.status, 'completed', JSON.stringify(content));
      assert.match(JSON.stringify(last?.result), /published to the ledger/);
      assert.equal(pushed[0], 'input_required', `pushed: ${pushed}`);
      assert.ok(pushed.includes('completed'), `pushed: ${pushed}`);
      const history = await taskHandle(stack.temporal.client, 'alice', taskId).fetchHistory();
      const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes);
      assert.equal(signals.length, 1, 'the answer reached the run once');
    } finally {
      await client.close();
    }
  });

  test('a run asking for input of a client that cannot answer: tasks/result names the respond companion; answered, the task completes', async () => {
    const client = await connect('alice');
    try {
      const messages = await follow(client, {
        difficulty: 4,
        blocks: 1,
        require_approval: true,
        data: 'legacy-input',
      });
      const taskId = String(messages[0]?.task?.taskId);
      const last = messages.at(-1);
      assert.equal(last?.type, 'result');
      const asking = structured(last?.result);
      assert.equal(asking.status, 'input_required', JSON.stringify(asking));
      assert.match(JSON.stringify(last?.result), /respond_to_mining/);
      const requests = asking.input_requests as Record<string, unknown>;
      const [key] = Object.keys(requests);
      await client.callTool({
        name: 'respond_to_mining',
        arguments: { workflow_id: taskId, key: String(key), action: 'accept', content: { approve: true } },
      });
      const done = await pollTask(client, taskId, (status) => status === 'completed');
      assert.equal(done.status, 'completed');
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal(structured(result).status, 'completed');
    } finally {
      await client.close();
    }
  });

  test("an answer POSTed by another principal for a task's input request changes nothing", async () => {
    const alice = await connect('alice');
    try {
      const taskId = await approvalTask(alice, 'legacy-foreign-answer');
      await pollTask(alice, taskId, (status) => status === 'input_required');
      const answer = (token: string, key: string) =>
        fetch(stack.gateway.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: inputRequestId(taskId, key),
            result: { action: 'accept', content: { approve: true } },
          }),
        });
      const key = 'approve-publish-1'; // the mining run's first question
      assert.equal((await answer(TOKENS.bob, key)).status, 202);
      assert.equal((await alice.experimental.tasks.getTask(taskId)).status, 'input_required');
      const history = await taskHandle(stack.temporal.client, 'alice', taskId).fetchHistory();
      assert.ok(!(history.events ?? []).some((e) => e.workflowExecutionSignaledEventAttributes));
      // The owner's own answer, on the same route, is taken.
      assert.equal((await answer(TOKENS.alice, key)).status, 202);
      assert.equal((await pollTask(alice, taskId, (status) => status === 'completed')).status, 'completed');
    } finally {
      await alice.close();
    }
  });

  test('tasks/cancel: the run is cancelled; tasks/list has the caller tasks only; another principal is refused', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob');
    try {
      const taskId = await approvalTask(alice, 'legacy-cancel');
      for (const attempt of [
        () => bob.experimental.tasks.getTask(taskId),
        () => bob.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
        () => bob.experimental.tasks.cancelTask(taskId),
      ])
        await assert.rejects(attempt(), (err: { code?: number }) => err.code === -32602);
      const cancelled = await alice.experimental.tasks.cancelTask(taskId);
      assert.equal(cancelled.status, 'cancelled');
      const described = await taskHandle(stack.temporal.client, 'alice', taskId).describe();
      assert.equal(described.status.name, 'CANCELLED');
      const listed = await pollList(alice, taskId);
      assert.equal(listed.find((task) => task.taskId === taskId)?.status, 'cancelled');
      const bobs = await bob.experimental.tasks.listTasks();
      assert.ok(!bobs.tasks.some((task) => task.taskId === taskId), "bob's list never has alice's task");
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});

function pollTask(client: V1Client, taskId: string, until: (status: string) => boolean) {
  return eventually(
    async () => {
      const task = await client.experimental.tasks.getTask(taskId);
      return until(task.status) ? task : undefined;
    },
    30_000,
    `task ${taskId} to reach the status`,
  );
}

function pollList(client: V1Client, taskId: string) {
  return eventually(
    async () => {
      const { tasks } = await client.experimental.tasks.listTasks();
      return tasks.find((task) => task.taskId === taskId)?.status === 'cancelled' ? tasks : undefined;
    },
    20_000,
    `task ${taskId} to be listed as cancelled`,
  );
}

const PYTHON_CLIENT = fileURLToPath(
  new URL('./fixtures/python/clients/mcp1_tasks_client.py', import.meta.url),
);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The python of .venv-mcp1 (made by the setup script when missing: about 15 s). */
async function mcp1Python(): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', ['scripts/python-test-env.sh', 'mcp1'], {
    cwd: ROOT,
    timeout: 300_000,
  });
  return stdout.trim().split('\n').at(-1) ?? '';
}

describe('tasks/result streams beside push streams', () => {
  test("a tasks/result stream is counted with the principal's push streams and served by the task's one watch", async () => {
    const gateway = await stack.extraGateway({
      env: {
        MCP_AUTH_TOKENS: `alice:${TOKENS.alice},bob:${TOKENS.bob}`,
        MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL: '2',
      },
    });
    const headers = { authorization: `Bearer ${TOKENS.alice}` };
    const client = await connect('alice');
    const taskId = await approvalTask(client, 'counted');
    await client.close();
    const push = await listen(gateway.url, { taskIds: [taskId] }, TASKS_CLIENT, headers);
    const leave = new AbortController();
    try {
      assert.equal((await push.next(5_000))?.method, 'notifications/subscriptions/acknowledged');
      // The same task on a 2025-11-25 tasks/result stream: the second stream of alice's.
      const result = await fetch(gateway.url, {
        method: 'POST',
        signal: leave.signal,
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/result', params: { taskId } }),
      });
      assert.equal(result.status, 200);
      // One Temporal watch serves both.
      const watches = await eventually(
        async () => {
          const open = (await scrape(gateway.origin)).get('mcp_gateway_task_watches');
          return open === 1 ? open : undefined;
        },
        5_000,
        'one task watch',
      );
      assert.equal(watches, 1);
      // A third stream of alice's is refused: the tasks/result stream holds a stream of hers.
      const third = await listen(gateway.url, { taskIds: [taskId] }, TASKS_CLIENT, headers);
      const refused = (await third.next(5_000)) as { error?: { data?: { reason?: string } } } | undefined;
      third.close();
      assert.equal(refused?.error?.data?.reason, 'principal_subscription_limit', JSON.stringify(refused));
    } finally {
      leave.abort();
      push.close();
      await taskHandle(stack.temporal.client, 'alice', taskId).cancel();
    }
  });
});

describe('a 2025-11-25 client with tasks (Python SDK 1.27.2 session.experimental)', () => {
  test('a long run, input answered (companion, then on the stream), a cancellation, the caller list; another principal refused', async () => {
    const plan = {
      url: stack.gateway.url.href,
      owner: TOKENS.alice,
      other: TOKENS.bob,
      long: { difficulty: 22, blocks: 4, data: 'python-long' },
      approval: { difficulty: 4, blocks: 1, require_approval: true, data: 'python-input' },
    };
    const { stdout } = await promisify(execFile)(await mcp1Python(), [PYTHON_CLIENT, JSON.stringify(plan)], {
      timeout: 120_000,
    });
    const seen = JSON.parse(stdout);
    assert.equal(seen.version, '1.27.2');
    const { owner, other } = seen;
    assert.deepEqual(owner.capabilities, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    assert.ok(
      owner.long.statuses.some((s: { status: string }) => s.status === 'working'),
      JSON.stringify(owner.long),
    );
    assert.equal(owner.long.statuses.at(-1).status, 'completed');
    assert.equal(owner.long.result.status, 'completed');
    assert.deepEqual(owner.long.related, { taskId: owner.long.task_id });
    assert.equal(owner.input.statuses.at(-1).status, 'input_required');
    assert.equal(owner.input.asked, 'input_required');
    assert.equal(owner.input.after.status, 'completed');
    assert.equal(owner.stream.asked.length, 1, JSON.stringify(owner.stream));
    assert.deepEqual(owner.stream.asked[0].related, { taskId: owner.stream.task_id });
    assert.equal(owner.stream.status, 'completed', JSON.stringify(owner.stream));
    assert.match(owner.stream.text, /published to the ledger/);
    assert.equal(owner.stream.pushed[0], 'input_required', JSON.stringify(owner.stream.pushed));
    assert.equal(owner.cancel.status, 'cancelled');
    for (const id of [owner.long.task_id, owner.input.task_id, owner.cancel.task_id])
      assert.ok(owner.listed.includes(id), `listed: ${owner.listed}`);
    assert.ok(
      Object.values(other.refusals).every((code) => code === -32602),
      JSON.stringify(other.refusals),
    );
    assert.ok(
      !other.listed.some((id: string) => owner.listed.includes(id)),
      "bob's list never has alice's tasks",
    );
  });
});
