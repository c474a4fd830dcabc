// `docker compose -f docker-compose.yml -f docker-compose.tracing.yml --profile tracing`, for real:
// the default stack sending its spans to Jaeger, one call's trace read back from Jaeger's query
// API. On podman the Jaeger image is the locally built substitute (scripts/compose-images.sh
// --profiles). Not part of `npm test`: `npm run test:compose:profiles` (COMPOSE_TESTS=1). Times to
// ready go to COMPOSE_TRACING_REPORT, default .data/compose-tracing.json, and are printed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ComposeProject, ROOT, servicesReady } from './support/compose.ts';
import { composeClient, generatedToken } from './support/compose-mcp.ts';
import { traceWhen } from './support/jaeger.ts';

const REPORT = process.env.COMPOSE_TRACING_REPORT || join(ROOT, '.data', 'compose-tracing.json');
/** What the profile publishes, fixed in the compose files. */
const JAEGER = { uiUrl: 'http://127.0.0.1:16686' };
const GATEWAY = new URL('http://127.0.0.1:3000/mcp');
const tracedReady = servicesReady(['jaeger', 'gateway', 'worker']);

const skip =
  process.env.COMPOSE_TESTS === '1' ? false : 'the compose tests run with npm run test:compose:profiles';
const report: Record<string, unknown> = {};

after(() => {
  if (skip) return; // Nothing ran: a report from an earlier run stays as it is.
  mkdirSync(dirname(REPORT), { recursive: true });
  writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`compose tracing report (${REPORT}):\n${JSON.stringify(report, null, 2)}`);
});

describe('docker compose --profile tracing: one call’s trace in Jaeger, gateway to activity', {
  skip,
}, () => {
  const project = new ComposeProject({
    name: 'tmg-compose-tracing',
    files: ['docker-compose.yml', 'docker-compose.tracing.yml'],
    profiles: ['tracing'],
  });

  before(async () => {
    await project.prepareEngine(['--profiles']);
    await project.compose(['down', '-v', '--remove-orphans'], 300_000);
  });

  after(async () => {
    if (process.env.COMPOSE_KEEP !== '1')
      await project.compose(['down', '-v', '--remove-orphans'], 300_000).catch(() => {});
  });

  test('up, one call, and its spans from the gateway and the worker under one trace', async () => {
    const cold = await project.upUntilReady(tracedReady, GATEWAY, { build: true });
    const client = composeClient(GATEWAY, await generatedToken(project, 'gateway'));
    const traceId = randomBytes(16).toString('hex');
    const answer = await client.call('tools/call', {
      name: 'start_mining',
      arguments: { difficulty: 8, blocks: 2, data: 'traced' },
      _meta: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    assert.equal(answer.resultType, 'complete', JSON.stringify(answer));
    const spans = await traceWhen(
      JAEGER,
      traceId,
      (s) =>
        s.filter((x) => x.name === 'RunActivity:mineBlock').length === 2 &&
        s.some((x) => x.name === 'tools/call start_mining'),
      'the call’s trace in Jaeger',
      60_000,
    );
    const services = new Set(spans.map((s) => s.service));
    assert.ok(services.has('mcp-gateway') && services.has('mcp-worker'), [...services].join(', '));
    await project.compose(['down'], 300_000);
    const warm = await project.upUntilReady(tracedReady, GATEWAY, { build: false });
    report.upToReadyMs = { cold: cold.ms, warm: warm.ms };
    await project.compose(['down', '-v'], 300_000);
    assert.deepEqual(await project.leftovers(), { container: '', volume: '', network: '' });
  });
});
