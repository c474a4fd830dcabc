// The cost of an input-required round: from the retry that carries the answer to the tool's result,
// on a workflow that answers at once (the conformance fixture askName), side by side with a plain
// tools/call of a workflow that answers at once (greet), interleaved in one run on one stack.
// `npm run bench:rounds` (ROUNDS, default 200).
import { fileURLToPath } from 'node:url';
import { integerSetting } from '../common/settings.ts';
import { startConformanceWorker } from '../test/support/conformance-worker.ts';
import { GATEWAY_UNDER_TSX } from '../test/support/gateway-process.ts';
import { type Framing, rpc } from '../test/support/mcp-http.ts';
import { startOwnTestTemporal } from '../test/support/temporal.ts';
import { BENCH_CHILD, startGatewayProcess } from './stack.ts';
import { distribution, ms, ratio, timed } from './stats.ts';

const ROUNDS = integerSetting(process.env, 'ROUNDS', { fallback: 200, min: 10, max: 100_000 });
const CATALOG = fileURLToPath(new URL('../test/fixtures/conformance/catalog.yaml', import.meta.url));
const FRAMING: Framing = {
  clientInfo: { name: 'bench-input-rounds', version: '1.0.0' },
  clientCapabilities: { elicitation: {} },
};

const temporal = await startOwnTestTemporal();
const worker = await startConformanceWorker(temporal.env, BENCH_CHILD);
const gateway = await startGatewayProcess({
  temporalAddress: temporal.server.address,
  taskQueue: 'conformance-fixtures',
  waitBudgetMs: 10_000,
  nodeArgs: GATEWAY_UNDER_TSX,
  env: { MCP_TOOLS_FILE: CATALOG },
});
const call = (params: Record<string, unknown>) => rpc(gateway.url, 'tools/call', params, FRAMING);

try {
  const retries: number[] = [];
  const firsts: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < ROUNDS + 10; i++) {
    const warm = i < 10;
    const asked = await timed(warm ? [] : firsts, () =>
      call({ name: 'test_input_required_result_elicitation', arguments: {} }),
    );
    if (asked.result?.resultType !== 'input_required')
      throw new Error(`no input_required: ${JSON.stringify(asked)}`);
    const done = await timed(warm ? [] : retries, () =>
      call({
        name: 'test_input_required_result_elicitation',
        arguments: {},
        inputResponses: { user_name: { action: 'accept', content: { name: `n${i}` } } },
        requestState: asked.result?.requestState,
      }),
    );
    if (done.result?.resultType === 'input_required' || !done.result?.content)
      throw new Error(`the retry did not complete: ${JSON.stringify(done)}`);
    await timed(warm ? [] : plain, () => call({ name: 'greet', arguments: { name: `n${i}` } }));
  }
  const rows = [
    ['plain tools/call (greet, answers at once)', distribution(plain)],
    ['first call → input_required', distribution(firsts)],
    ['retry with the answer → result', distribution(retries)],
  ] as const;
  const base = distribution(plain);
  console.log(`input-required rounds: ${ROUNDS} rounds, interleaved, one stack`);
  for (const [name, d] of rows) {
    console.log(
      `  ${name.padEnd(44)} p50 ${ms(d.p50).padStart(9)}  p99 ${ms(d.p99).padStart(9)}  ` +
        `p50 vs plain ${ratio(d.p50 / base.p50)}`,
    );
  }
} finally {
  await gateway.stop();
  await worker.stop();
  await temporal.close();
}
