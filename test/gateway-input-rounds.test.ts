// Input-required results (multi-round-trip requests) against the real stack: a Temporal dev server,
// the conformance fixture worker, and the gateway process serving the conformance catalog with two
// principals. A first call whose run asks for input answers input_required with a requestState; the
// retry's answers reach the run on its input signal, and the retry never starts a second run. A
// tampered, another caller's or another tool's requestState is refused and changes nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../launcher/free-port.ts';
import type { TestProcess } from './support/child-process.ts';
import { startConformanceWorker } from './support/conformance-worker.ts';
import { type GatewayProcess, startGatewayProcess } from './support/gateway-process.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { type Framing, rpc } from './support/mcp-http.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';

const CATALOG = fileURLToPath(new URL('./fixtures/conformance/catalog.yaml', import.meta.url));
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef0123';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const ELICITING: Framing = {
  clientInfo: { name: 'input-rounds-test', version: '1.0.0' },
  clientCapabilities: { elicitation: {} },
};
const SAMPLING_ONLY: Framing = {
  clientInfo: { name: 'input-rounds-test', version: '1.0.0' },
  clientCapabilities: { sampling: {} },
};
const ASK_NAME = 'test_input_required_result_elicitation';
const answerName = (name: string) => ({ user_name: { action: 'accept', content: { name } } });

let temporal: TestTemporal;
let worker: TestProcess;
let gateway: GatewayProcess;
let client: Client;
let dataDir: string;

/** How many runs of `workflowType` Temporal holds (visibility catches up within a moment). */
async function runsOf(workflowType: string): Promise<number> {
  const { count } = await client.workflow.count(`WorkflowType = '${workflowType}'`);
  return count;
}

/** The text of a tool result's first content block. */
function firstText(answer: { result?: Record<string, unknown> }): string | undefined {
  const content = answer.result?.content as { text?: string }[] | undefined;
  return content?.[0]?.text;
}

async function call(token: string, params: Record<string, unknown>, framing: Framing = ELICITING) {
  return rpc(gateway.url, 'tools/call', params, framing, as(token));
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'input-rounds-'));
  temporal = await startTestTemporal();
  worker = await startConformanceWorker(temporal.env);
  gateway = await startGatewayProcess(await freePort(), {
    ...temporal.env,
    MCP_TOOLS_FILE: CATALOG,
    MCP_DATA_DIR: dataDir,
    MCP_SERVER_SECRET: TEST_SERVER_SECRET,
    MCP_AUTH_TOKENS: `alice:${ALICE},bob:${BOB}`,
  });
  client = new Client({
    connection: await Connection.connect({ address: temporal.address }),
    namespace: temporal.namespace,
  });
});

after(async () => {
  await client?.connection.close();
  await gateway?.stop().catch(() => {});
  await worker?.stop().catch(() => {});
  await temporal?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('input-required results', () => {
  test('a run that asks is answered input_required; the retry completes the same run', async () => {
    const before = await runsOf('askName');
    const first = await call(ALICE, { name: ASK_NAME, arguments: {} });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const requests = first.result?.inputRequests as Record<string, { method: string }>;
    assert.equal(requests.user_name?.method, 'elicitation/create');
    const requestState = first.result?.requestState;
    assert.equal(typeof requestState, 'string');
    // The state is signed, not a bare run id: the workflow id never appears in it raw.
    assert.doesNotMatch(String(requestState), new RegExp(`^${ASK_NAME}-`));

    const second = await call(ALICE, {
      name: ASK_NAME,
      arguments: {},
      inputResponses: answerName('Ada'),
      requestState,
    });
    assert.notEqual(second.result?.resultType, 'input_required', JSON.stringify(second));
    assert.equal(firstText(second), 'Hello, Ada!');
    assert.equal(await runsOf('askName'), before + 1, 'the retry started no run of its own');

    // The same state again: the run is finished, so its result, not a new run.
    const again = await call(ALICE, {
      name: ASK_NAME,
      arguments: {},
      inputResponses: answerName('Someone else'),
      requestState,
    });
    assert.equal(firstText(again), 'Hello, Ada!');
    assert.equal(await runsOf('askName'), before + 1);
  });

  test('a tampered, foreign or misplaced requestState is refused with -32602 and signals nothing', async () => {
    const first = await call(ALICE, { name: ASK_NAME, arguments: {} });
    const requestState = String(first.result?.requestState);
    const retry = (token: string, state: string, name = ASK_NAME) =>
      call(token, { name, arguments: {}, inputResponses: answerName('Mallory'), requestState: state });

    const tampered = await retry(ALICE, `${requestState}x`);
    assert.equal(tampered.error?.code, -32602, JSON.stringify(tampered));
    const foreign = await retry(BOB, requestState);
    assert.equal(foreign.error?.code, -32602, JSON.stringify(foreign));
    const malformed = await retry(ALICE, 'not-a-state');
    assert.equal(malformed.error?.code, -32602);
    const otherTool = await retry(ALICE, requestState, 'test_input_required_result_request_state');
    assert.equal(otherTool.error?.code, -32602, JSON.stringify(otherTool));
    assert.match(otherTool.error?.message ?? '', /another tool/);

    // None of them reached the run: it still waits, and the rightful retry completes it.
    const rightful = await retry(ALICE, requestState);
    assert.equal(firstText(rightful), 'Hello, Mallory!');
  });

  test('a requestState answers only its own round: replayed after it, it is refused and reaches nothing', async () => {
    const name = 'test_input_required_result_multi_round';
    // A retry answering one field of one request, with the given state.
    const retry = (state: string, key: string, field: string, value: string) =>
      call(ALICE, {
        name,
        arguments: {},
        inputResponses: { [key]: { action: 'accept', content: { [field]: value } } },
        requestState: state,
      });
    const first = await call(ALICE, { name, arguments: {} });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const state1 = String(first.result?.requestState);
    const second = await retry(state1, 'step1', 'name', 'Ada');
    assert.equal(second.result?.resultType, 'input_required', JSON.stringify(second));
    assert.ok((second.result?.inputRequests as Record<string, unknown> | undefined)?.step2);
    const state2 = String(second.result?.requestState);
    // The first round's state again, now carrying an answer to the second round's request.
    const replayed = await retry(state1, 'step2', 'color', 'Mallory green');
    assert.equal(replayed.error?.code, -32602, JSON.stringify(replayed));
    assert.match(replayed.error?.message ?? '', /round already answered/);
    const rightful = await retry(state2, 'step2', 'color', 'blue');
    assert.equal(firstText(rightful), "Ada's favorite color is blue.");
  });

  test('a client is sent only the input requests its capabilities allow', async () => {
    const answer = await call(
      ALICE,
      { name: 'test_input_required_result_capabilities', arguments: {} },
      SAMPLING_ONLY,
    );
    assert.equal(answer.result?.resultType, 'input_required', JSON.stringify(answer));
    const methods = Object.values(answer.result?.inputRequests as Record<string, { method: string }>).map(
      (r) => r.method,
    );
    assert.deepEqual(methods, ['sampling/createMessage']);
  });

  test('answers a first call brings along are given to the run when it asks for them', async () => {
    const answer = await call(ALICE, { name: ASK_NAME, arguments: {}, inputResponses: answerName('Grace') });
    assert.equal(firstText(answer), 'Hello, Grace!', JSON.stringify(answer));
  });
});
