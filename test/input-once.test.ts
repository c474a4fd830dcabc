// Input answers exactly once: a 2026-07-28 client without the Tasks extension answers mining's
// approval by retrying tools/call with inputResponses and the requestState, round after round (an
// answer without `approve` is asked again under a new key, then the approval publishes). The answer
// each retry gets reflects the run after it took the answer: no answered key is ever asked again.
// Each retry also carries approvals to an unknown key and to an answered one: the run ignores them
// (if it took one, it would publish a round early). Real dev server, worker and mining workflow,
// the worker kept busy mining meanwhile, as a deployment's workers are.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestGateway } from './support/gateway-server.ts';
import { type Framing, rpc } from './support/mcp-http.ts';
import { delta, scrape } from './support/metrics-scrape.ts';
import { startTestStack, type TestStack } from './support/stack.ts';

/** A form-capable client without the Tasks extension: it is asked in the call's own answer. */
const FORM_CLIENT: Framing = {
  clientInfo: { name: 'input-once-test', version: '1.0.0' },
  clientCapabilities: { elicitation: {} },
};
const RUNS = 50;
/** Retries a run: answers without `approve` (asked again under a new key), then the approval. */
const RETRIES_PER_RUN = 4;
/**
 * Runs followed at once, beside BUSY_RUNS: a worker this busy takes a workflow task in hundreds of
 * milliseconds to seconds, so a retry that did not wait for its answer to be taken read the run
 * before it (measured before the fix: 55 of the 200 retries asked an answered key again; 4 at 10
 * at once; without the busy runs, 37 on a machine loaded by other work, 0 to 3 on an idle one).
 */
const AT_ONCE = 25;
/** Runs mining on every core of the worker meanwhile, as a busy deployment's do (cancelled at the end). */
const BUSY_RUNS = 2;
const BUSY_JOB = { difficulty: 32, blocks: 20 };
/** Mining is instant at this size; the wait is the person's. */
const JOB = { difficulty: 6, blocks: 1, require_approval: true };

const INVALID = { action: 'accept', content: { note: 'no approve field' } };
const APPROVE = { action: 'accept', content: { approve: true } };

let stack: TestStack | undefined;
let gateway: TestGateway;

before(async () => {
  stack = await startTestStack('input-once', { waitBudgetMs: 10_000 });
  gateway = stack.gateway;
});

after(async () => {
  await stack?.close();
});

interface Tally {
  retries: number;
  /** Answers that were input-required results, first calls and retries alike. */
  inputRequired: number;
  /** Retries answered input_required with a key answered before. */
  reAsks: string[];
}

type Answer = Awaited<ReturnType<typeof rpc>>;

function inputKeys(answer: Answer): string[] {
  return answer?.result?.resultType === 'input_required'
    ? Object.keys((answer.result.inputRequests as Record<string, unknown>) ?? {})
    : [];
}

/** An input-required result asking only keys not answered before. */
function asksAnew(answer: Answer, answered: readonly string[]): boolean {
  const keys = inputKeys(answer);
  return keys.length > 0 && !keys.some((key) => answered.includes(key));
}

/** One run followed through its rounds; each retry checked against the keys answered so far. */
async function followRun(run: number, tally: Tally): Promise<void> {
  const call = async (params: Record<string, unknown>) => {
    const answer = await rpc(gateway.url, 'tools/call', params, FORM_CLIENT);
    if (answer.result?.resultType === 'input_required') tally.inputRequired++;
    return answer;
  };
  // The key names the run: a call without a requestState reads what it asks now.
  const args = { ...JOB, data: `input-once ${run}`, idempotency_key: `input-once-${process.pid}-${run}` };
  let answer = await call({ name: 'start_mining', arguments: args });
  const answered: string[] = [];
  for (let round = 1; round <= RETRIES_PER_RUN; round++) {
    // After a re-ask, or a handle (a look at the run that failed under load), what the run asks
    // now: the call again without a requestState, as a client told "round already answered" would.
    for (let tries = 0; !asksAnew(answer, answered); tries++) {
      assert.ok(tries < 20, `run ${run} round ${round}: ${JSON.stringify(answer)}`);
      answer = await call({ name: 'start_mining', arguments: args });
    }
    const keys = inputKeys(answer);
    assert.equal(keys.length, 1, `run ${run} round ${round} asks one key: ${JSON.stringify(answer)}`);
    const key = keys[0] as string;
    assert.equal(key, `approve-publish-${round}`);
    const last = round === RETRIES_PER_RUN;
    answer = await call({
      name: 'start_mining',
      arguments: args,
      requestState: answer.result?.requestState,
      inputResponses: {
        [key]: last ? APPROVE : INVALID,
        // Ignored by the run: a key it never asked, and one it took an answer to already.
        'approve-publish-99': APPROVE,
        ...(answered.length > 0 ? { [answered[0] as string]: APPROVE } : {}),
      },
    });
    answered.push(key);
    tally.retries++;
    const again = inputKeys(answer).filter((asked) => answered.includes(asked));
    if (again.length > 0) tally.reAsks.push(`run ${run} round ${round}: ${again.join(', ')}`);
  }
  type Json = { status?: string; result?: { publication?: { status?: string } } } | undefined;
  const json = () => answer.result?.structuredContent as Json;
  for (let tries = 0; json()?.status !== 'completed'; tries++) {
    assert.ok(tries < 20, `run ${run} did not complete: ${JSON.stringify(answer)}`);
    answer = await call({ name: 'start_mining', arguments: args });
  }
  const end = json();
  assert.equal(end?.result?.publication?.status, 'published', `run ${run}: published by its approval`);
}

test(`${RUNS * RETRIES_PER_RUN} approval retries ask no answered key twice`, {
  timeout: 300_000,
}, async () => {
  const tally: Tally = { retries: 0, inputRequired: 0, reAsks: [] };
  const busy = await Promise.all(
    Array.from({ length: BUSY_RUNS }, async (_, i) => {
      const args = { ...BUSY_JOB, data: `busy ${i}` };
      const created = await rpc(gateway.url, 'tools/call', { name: 'start_mining', arguments: args });
      assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
      return String(created.result?.taskId);
    }),
  );
  const before = await scrape(gateway.origin);
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < RUNS) await followRun(next++, tally);
      }),
    );
  } finally {
    for (const taskId of busy) await rpc(gateway.url, 'tasks/cancel', { taskId });
  }
  console.log(
    `input-once: ${tally.retries} approval retries, ${tally.reAsks.length} asked an answered key again`,
  );
  assert.equal(tally.retries, RUNS * RETRIES_PER_RUN);
  // Each input-required answer is counted as one, not as an inline result.
  const after = await scrape(gateway.origin);
  const counted = (outcome: string) =>
    delta(before, after, 'mcp_gateway_tool_calls_total', { tool: 'start_mining', outcome });
  assert.equal(counted('input_required'), tally.inputRequired);
  assert.equal(counted('inline'), RUNS, 'one final result a run');
  assert.deepEqual(tally.reAsks, [], 'no retry asks a key it answered');
});
