// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json) run
// against the real stack: a Temporal dev server, the conformance fixture worker and the gateway
// process serving test/fixtures/conformance/catalog.yaml. Every scenario the 2026-07-28
// requirement set runs (scored or not: the Tasks extension, the SEP-2243 header scenarios,
// json-schema-2020-12) must pass, except those test/fixtures/conformance/expected-failures.yaml
// lists as not applicable to a tools-only gateway. The suite needs Node.js >= 22: it runs on the
// Node.js that CONFORMANCE_NODE names (a bin folder), else on the one running this test (the
// project's lines, 24 and 26).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { freePort } from '../launcher/free-port.ts';
import type { TestProcess } from './support/child-process.ts';
import { startConformanceWorker } from './support/conformance-worker.ts';
import { type GatewayProcess, startGatewayProcess } from './support/gateway-process.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { PLAIN_CLIENT, rpcResult } from './support/mcp-http.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const run = promisify(execFile);
const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const ROOT = path('..');
const CATALOG = path('./fixtures/conformance/catalog.yaml');
const EXPECTED_FAILURES = path('./fixtures/conformance/expected-failures.yaml');
const SUITE = path('../node_modules/@modelcontextprotocol/conformance/');
const REVISION = '2026-07-28';
/** The whole run takes a few minutes; a scenario has its own 30 s limit inside the suite. */
const SUITE_TIMEOUT_MS = 20 * 60 * 1000;
/** server-stateless gives a call's answer stream 500 ms; a warm stack answers well within it. */
const WARM_ANSWER_MS = 300;

let temporal: TestTemporal;
let worker: TestProcess;
let gateway: GatewayProcess;
let dataDir: string;
let outputDir: string;

/** The bin folder of a Node.js the suite runs on. */
function conformanceNode(): string {
  return process.env.CONFORMANCE_NODE || dirname(process.execPath);
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Every scenario's checks, from the output folder (one `server-<scenario>-<time>/checks.json` each). */
function readResults(dir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (!scenario) continue;
    results.set(scenario, JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

/** The server scenarios the requirement set runs: its `server` list and its server-leg `not_scored`. */
function requiredScenarios(): string[] {
  const set = parse(readFileSync(join(SUITE, `requirements/${REVISION}.yaml`), 'utf8')) as {
    server: string[];
    not_scored: { scenario: string; leg: string }[];
  };
  return [...set.server, ...set.not_scored.filter((s) => s.leg === 'server').map((s) => s.scenario)];
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'conformance-'));
  outputDir = join(dataDir, 'results');
  temporal = await startTestTemporal();
  worker = await startConformanceWorker(temporal.env);
  gateway = await startGatewayProcess(await freePort(), {
    ...temporal.env,
    MCP_TOOLS_FILE: CATALOG,
    MCP_DATA_DIR: dataDir,
    MCP_SERVER_SECRET: TEST_SERVER_SECRET,
  });
  // A fresh worker's first runs take seconds (its workflow sandbox is being built): the suite starts
  // once a fixture answers inline at the speed the suite's stream checks allow, or after 30 s of
  // trying, when the suite's own checks judge the speed.
  await eventually(
    async () => {
      const started = performance.now();
      const result = await rpcResult(gateway.url, 'tools/call', { name: 'test_logging_tool' }, PLAIN_CLIENT);
      const text = (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';
      return text.startsWith('Done') && performance.now() - started < WARM_ANSWER_MS ? true : undefined;
    },
    30_000,
    `test_logging_tool answering inline within ${WARM_ANSWER_MS} ms`,
  ).catch((err: Error) => console.log(`conformance: starting the suite anyway (${err.message})`));
});

after(async () => {
  await gateway?.stop().catch(() => {});
  await worker?.stop().catch(() => {});
  await temporal?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test(`the conformance suite's ${REVISION} requirement set passes but for the scenarios that do not apply`, {
  timeout: SUITE_TIMEOUT_MS,
}, async () => {
  const nodeBin = conformanceNode();
  const { bin } = JSON.parse(readFileSync(join(SUITE, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  const args = [
    join(SUITE, bin.conformance as string),
    'server',
    '--url',
    gateway.url.href,
    '--requirements',
    REVISION,
    '--expected-failures',
    EXPECTED_FAILURES,
    '-o',
    outputDir,
  ];
  const suite = await run(join(nodeBin, 'node'), args, {
    cwd: ROOT,
    env: { ...process.env, PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: SUITE_TIMEOUT_MS,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? 1,
      output: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  );

  const results = readResults(outputDir);
  // Entries are whole scenarios, or `<scenario>:<check id>` for one check of a scenario.
  const listed = new Set((parse(readFileSync(EXPECTED_FAILURES, 'utf8')) as { server: string[] }).server);
  const failing = (check: Check) => check.status === 'FAILURE' || check.status === 'WARNING';
  const unexpected: string[] = [];
  const stale: string[] = [];
  let checksPassed = 0;
  let checksFailed = 0;
  let warnings = 0;
  let scenariosPassed = 0;
  for (const [scenario, checks] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
    // As the suite judges a baseline: a warning (a SHOULD not met) fails its scenario too.
    const failed = checks.filter(failing);
    checksPassed += checks.filter((c) => c.status === 'SUCCESS').length;
    checksFailed += checks.filter((c) => c.status === 'FAILURE').length;
    warnings += checks.filter((c) => c.status === 'WARNING').length;
    if (failed.length === 0) scenariosPassed++;
    if (listed.has(scenario)) {
      if (failed.length === 0) stale.push(scenario);
      continue;
    }
    for (const check of failed) {
      if (listed.has(`${scenario}:${check.id}`)) continue;
      unexpected.push(`${scenario} / ${check.id} (${check.status}): ${check.errorMessage ?? '(no message)'}`);
    }
    // A listed check that ran and passed everywhere is stale; one that did not run is not.
    for (const id of new Set(checks.map((c) => c.id))) {
      const runs = checks.filter((c) => c.id === id);
      if (listed.has(`${scenario}:${id}`) && runs.some((c) => c.status === 'SUCCESS') && !runs.some(failing))
        stale.push(`${scenario}:${id}`);
    }
  }
  console.log(
    `conformance ${REVISION}: ${results.size} scenarios, ${scenariosPassed} passed, ` +
      `${results.size - scenariosPassed} failed; checks: ${checksPassed} passed, ${checksFailed} failed, ` +
      `${warnings} warnings; ${listed.size} expected-failure entries`,
  );

  const missing = requiredScenarios().filter((scenario) => !results.has(scenario));
  assert.deepEqual(missing, [], `scenarios of the requirement set that did not run:\n${suite.output}`);
  assert.deepEqual(unexpected, [], 'failures outside test/fixtures/conformance/expected-failures.yaml');
  assert.deepEqual(stale, [], 'expected failures that now pass: remove them from the file');
  assert.equal(suite.code, 0, `the suite exited ${suite.code}:\n${suite.output.slice(-20_000)}`);
  // The figures the docs quote (README.md, docs/conformance.md), checked by test/doc-facts.test.ts:
  // written when they change (whole, then renamed, as another test may read them meanwhile), so a
  // run with the same figures leaves the file as it was.
  const file = path('../docs/conformance-results.json');
  const measured = {
    revision: REVISION,
    scenarios: { total: results.size, passed: scenariosPassed, failed: results.size - scenariosPassed },
    checks: { passed: checksPassed, failed: checksFailed, warnings },
  };
  const { date: _, ...recorded } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (JSON.stringify(recorded) !== JSON.stringify(measured)) {
    const figures = { ...measured, date: new Date().toISOString().slice(0, 10) };
    writeFileSync(`${file}.partial`, `${JSON.stringify(figures, null, 2)}\n`);
    renameSync(`${file}.partial`, file);
  }
});
