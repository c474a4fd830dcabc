// Every wait and stream of a principal's counts against its bound, against a real dev server with no
// worker (a call waits its whole budget; a settle waits its whole deadline). With
// MCP_MAX_WAITS_PER_PRINCIPAL at 1, a call holding its wait makes tasks/update, a 2025-11-25
// tasks/cancel (nothing sent) and an answer to a task's input request refused (wait_limit), and a
// 2025-11-25 tasks/cancel settling makes a call that would wait refused; with
// MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL at 1, a task stream makes the SDK's own subscriptions/listen
// refused (principal_subscription_limit), and its stream is given back once it ends. Another
// principal is served all along.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inputRequestId } from '../gateway/mcp/legacy-task-input.ts';
import { startGateway, type TestGateway, taskHandle } from './support/gateway-server.ts';
import { type RpcAnswer, readMessage, rpc, TASKS_CLIENT } from './support/mcp-http.ts';
import { listen } from './support/sse-listen.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const TOKENS = { erin: 'erin-token-0123456789abcdef01', dave: 'dave-token-0123456789abcdef01' } as const;
type Who = keyof typeof TOKENS;
/** The mining run's first question. */
const KEY = 'approve-publish-1';
// TASKS_CLIENT's calls answer at once (its budget is 0): they hold no wait. This client's wait 4 s.
const WAITING_CLIENT = { ...TASKS_CLIENT, clientInfo: { name: 'gateway-test-waiting', version: '1.0.0' } };
let temporal: TestTemporal;
let gateway: TestGateway;

before(async () => {
  temporal = await startTestTemporal();
  gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: `nobody-waits-${process.pid}`,
    waitBudgetMs: 4_000,
    // A settle waits for the run to take the answer within this deadline: no worker ever does.
    temporalTimeoutMs: 5_000,
    env: {
      MCP_AUTH_TOKENS: Object.entries(TOKENS)
        .map(([principal, token]) => `${principal}:${token}`)
        .join(','),
      MCP_CLIENT_WAIT_BUDGETS: `${TASKS_CLIENT.clientInfo.name}=0`,
      MCP_MAX_WAITS_PER_PRINCIPAL: '1',
      MCP_LISTEN_MAX_STREAMS_PER_PRINCIPAL: '1',
    },
  });
});

after(async () => {
  await gateway?.close();
  await temporal?.close();
});

const bearer = (who: Who) => ({ authorization: `Bearer ${TOKENS[who]}` });

// A waiting client's call waits on the run's result alone (a run asking for input is watched too).
const start = (who: Who, data: string, framing = TASKS_CLIENT) =>
  rpc(
    gateway.url,
    'tools/call',
    {
      name: 'start_mining',
      arguments: { difficulty: 1, blocks: 1, data, require_approval: framing === TASKS_CLIENT },
    },
    framing,
    bearer(who),
  );

/** Runs each principal's calls started so far (a refused call starts none). */
const started: Record<Who, number> = { erin: 0, dave: 0 };

/** A task of `who`'s, answered at once (its call held no wait). */
async function taskOf(who: Who, data: string): Promise<string> {
  const answer = await start(who, data);
  const taskId = answer.result?.taskId;
  assert.equal(typeof taskId, 'string', JSON.stringify(answer));
  started[who]++;
  return taskId as string;
}

/** A call of `who`'s holding its wait: given once its run exists (a call takes its wait before it starts). */
async function heldWait(who: Who, data: string): Promise<{ answer: Promise<RpcAnswer> }> {
  const call = start(who, data, WAITING_CLIENT);
  started[who]++;
  await eventually(
    async () =>
      (await temporal.client.workflow.count(`McpPrincipal = "${who}"`)).count === started[who]
        ? true
        : undefined,
    10_000,
    `${who}'s waiting call's run`,
  );
  return { answer: call };
}

const history = (who: Who, taskId: string) => taskHandle(temporal.client, who, taskId).fetchHistory();

async function cancelRequested(who: Who, taskId: string): Promise<boolean> {
  return ((await history(who, taskId)).events ?? []).some(
    (event) => event.workflowExecutionCancelRequestedEventAttributes,
  );
}

const data = (answer: { error?: { data?: unknown } }) =>
  answer.error?.data as Record<string, unknown> | undefined;

function assertWaitLimit(answer: RpcAnswer, what: string): void {
  assert.equal(answer.error?.code, -32000, `${what}: ${JSON.stringify(answer)}`);
  assert.equal(data(answer)?.reason, 'wait_limit', what);
  assert.equal(data(answer)?.setting, 'MCP_MAX_WAITS_PER_PRINCIPAL', what);
}

/** A 2025-11-25 message POSTed on its own (stateless, as the revision's clients send one). */
const postLegacy = (who: Who, message: Record<string, unknown>) =>
  fetch(gateway.url, {
    method: 'POST',
    headers: {
      ...bearer(who),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });

/** A 2025-11-25 request. */
async function legacyRpc(who: Who, method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
  const response = await postLegacy(who, { id: 1, method, params });
  const message = await readMessage(response);
  return { httpStatus: response.status, ...(message as Omit<RpcAnswer, 'httpStatus'>) };
}

/** A 2025-11-25 client's answer to the task's input request `KEY`, POSTed on its own. */
async function answerInput(who: Who, taskId: string): Promise<RpcAnswer> {
  const response = await postLegacy(who, {
    id: inputRequestId(taskId, KEY),
    result: { action: 'accept', content: { approve: true } },
  });
  const text = await response.text();
  return { httpStatus: response.status, ...(text ? JSON.parse(text) : {}) };
}

const update = (who: Who, taskId: string) =>
  rpc(
    gateway.url,
    'tasks/update',
    { taskId, inputResponses: { [KEY]: { action: 'accept', content: { approve: true } } } },
    TASKS_CLIENT,
    bearer(who),
  );

/**
 * The wait a request of `who`'s settles in holds one of the principal's waits: once `settling` sees
 * it under way (no worker takes the run, so it lasts its whole deadline), a call that would wait is
 * refused at once.
 */
async function refusesCallsWhileSettling(who: Who, settling: () => Promise<boolean>, what: string) {
  await eventually(async () => ((await settling()) ? true : undefined), 10_000, what);
  const sent = performance.now();
  const refusal = await start(who, `${who} while ${what}`, WAITING_CLIENT);
  assertWaitLimit(refusal, `a call while ${what}`);
  assert.ok(performance.now() - sent < 1_000, 'refused at once');
}

// With no worker the run asks nothing, so a served answer is not signalled: its refusal is what shows.
test('tasks/update: its settle is one of the principal’s waits, refused past the bound; another principal’s is served', async () => {
  const erins = await taskOf('erin', 'erin update');
  const daves = await taskOf('dave', 'dave update');
  const held = await heldWait('erin', 'erin held for update');
  assertWaitLimit(await update('erin', erins), "erin's tasks/update while her call waits");
  assert.deepEqual((await update('dave', daves)).error, undefined, 'dave’s update is served');
  assert.equal(
    (await held.answer).result?.resultType,
    'task',
    "erin's call waited its budget, then answered",
  );
  // Her wait released, erin's update is served.
  assert.equal((await update('erin', erins)).error, undefined);
});

test('a 2025-11-25 tasks/cancel: its settle is one of the principal’s waits, refused before the cancel is sent', async () => {
  const erins = await taskOf('erin', 'erin cancel');
  const daves = await taskOf('dave', 'dave cancel');
  const held = await heldWait('erin', 'erin held for cancel');
  assertWaitLimit(await legacyRpc('erin', 'tasks/cancel', { taskId: erins }), "erin's tasks/cancel");
  assert.equal(await cancelRequested('erin', erins), false, 'the refused cancel sent nothing');
  const served = legacyRpc('dave', 'tasks/cancel', { taskId: daves });
  await refusesCallsWhileSettling(
    'dave',
    () => cancelRequested('dave', daves),
    "dave's tasks/cancel settles",
  );
  assert.equal((await served).error, undefined, JSON.stringify(await served));
  await held.answer;
  assert.equal((await legacyRpc('erin', 'tasks/cancel', { taskId: erins })).error, undefined);
  assert.equal(await cancelRequested('erin', erins), true);
});

test('an answer to a task’s input request: its settle is one of the principal’s waits, refused past the bound', async () => {
  const erins = await taskOf('erin', 'erin answer');
  const daves = await taskOf('dave', 'dave answer');
  const held = await heldWait('erin', 'erin held for answer');
  const refusal = await answerInput('erin', erins);
  assertWaitLimit(refusal, "erin's answer while her call waits");
  assert.equal(refusal.httpStatus, 429);
  assert.equal((await answerInput('dave', daves)).httpStatus, 202, 'dave’s answer is taken');
  await held.answer;
  assert.equal((await answerInput('erin', erins)).httpStatus, 202);
});

test('subscriptions/listen without taskIds (the SDK’s own events) is one of the principal’s streams', async () => {
  const erins = await taskOf('erin', 'erin listen');
  const own = { toolsListChanged: true };
  const push = await listen(gateway.url, { taskIds: [erins] }, TASKS_CLIENT, bearer('erin'));
  try {
    assert.equal((await push.next(5_000))?.method, 'notifications/subscriptions/acknowledged');
    const refused = await listen(gateway.url, own, TASKS_CLIENT, bearer('erin'));
    const refusal = (await refused.next(5_000)) as { error?: { code?: number; data?: { reason?: string } } };
    refused.close();
    assert.equal(refused.status, 429);
    assert.equal(refusal?.error?.code, -32000);
    assert.equal(refusal?.error?.data?.reason, 'principal_subscription_limit', JSON.stringify(refusal));
    const daves = await listen(gateway.url, own, TASKS_CLIENT, bearer('dave'));
    assert.equal((await daves.next(5_000))?.method, 'notifications/subscriptions/acknowledged');
    daves.close();
  } finally {
    push.close();
  }
  // Her task stream closed, erin's own listen is served; once it has ended, its stream is given back.
  const served = await eventually(
    async () => {
      const stream = await listen(gateway.url, own, TASKS_CLIENT, bearer('erin'));
      const first = await stream.next(5_000);
      if (first?.method === 'notifications/subscriptions/acknowledged') return stream;
      stream.close();
      return undefined;
    },
    5_000,
    "erin's own listen once her task stream closed",
  );
  while ((await served.next(5_000)) !== undefined);
  const again = await listen(gateway.url, { taskIds: [erins] }, TASKS_CLIENT, bearer('erin'));
  assert.equal((await again.next(5_000))?.method, 'notifications/subscriptions/acknowledged');
  again.close();
});
