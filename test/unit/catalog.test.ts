// The catalog file: what a good one becomes, and how a bad one stops the gateway (file, entry, field);
// a catalog module, and the built-in catalog, which is one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Catalog, defaultCompanions } from '../../gateway/mcp/catalog.ts';
import {
  builtInCatalogPath,
  loadCatalog,
  loadCatalogFile,
  loadCatalogModule,
} from '../../gateway/mcp/catalog-file.ts';
import { BUILT_IN_CATALOG, BUILT_IN_CATALOG_COMPILED } from '../../gateway/runtime-flags.ts';
import { loadSettings } from '../../gateway/settings/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const defaults = { taskQueue: 'default-queue', waitBudgetMs: 20_000 };

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const entry = (extra: Record<string, unknown> = {}) => ({
  name: 'start_report',
  description: 'Builds a report.',
  workflow: 'buildReport',
  inputSchema: { type: 'object', properties: { year: { type: 'integer' } } },
  ...extra,
});

const json = (tools: unknown[]) =>
  file(`c-${Math.random().toString(36).slice(2)}.json`, JSON.stringify({ tools }));

describe('a good catalog', () => {
  test('the fixture file: defaults filled in, companions named, the key argument kept', async () => {
    const path = fileURLToPath(new URL('../fixtures/catalog.yaml', import.meta.url));
    const [echo, review] = await loadCatalogFile(path, defaults);
    assert.equal(echo?.taskQueue, 'fixture-echo');
    assert.equal(echo?.waitBudgetMs, 1500);
    assert.deepEqual(echo?.companions, { result: 'get_echo_slowly_result', cancel: 'cancel_echo_slowly' });
    assert.deepEqual(review?.companions, {
      result: 'check_review',
      cancel: 'stop_review',
      respond: 'respond_to_review_draft',
    });
    assert.equal(review?.idempotencyKeyArgument, 'request_id');
    assert.equal(review?.idPrefix, 'review_draft');
  });

  test('JSON works too; an entry without taskQueue or waitBudgetMs takes the gateway defaults', async () => {
    const [tool] = await loadCatalogFile(json([entry()]), defaults);
    assert.equal(tool?.taskQueue, 'default-queue');
    assert.equal(tool?.waitBudgetMs, 20_000);
    assert.equal(tool?.maxDurationMs, 7 * 24 * 60 * 60 * 1000, 'a run lasts at most 7 days unless it says');
    assert.equal(tool?.progressQuery, undefined);
    const [short] = await loadCatalogFile(json([entry({ maxDurationMs: 60_000 })]), defaults);
    assert.equal(short?.maxDurationMs, 60_000);
  });

  test('secrets at any depth are found at load: their places, kept with the tool', async () => {
    const schema = {
      type: 'object',
      $defs: { Token: { type: 'string', writeOnly: true } },
      properties: {
        year: { type: 'integer' },
        source: { type: 'object', properties: { token: { $ref: '#/$defs/Token' } } },
        mirrors: {
          type: 'array',
          items: { type: 'object', properties: { password: { type: 'string', writeOnly: true } } },
        },
      },
    };
    const [secret, plain] = await loadCatalogFile(
      json([entry({ inputSchema: schema }), entry({ name: 'start_plain' })]),
      defaults,
    );
    assert.deepEqual(secret?.secrets?.paths, ['source.token', 'mirrors[].password']);
    assert.equal(plain?.secrets, undefined);
  });

  test('a tool name with dots is its id prefix; one whose ids would not read back may give another', async () => {
    const odd = `x-${'A'.repeat(32)}.v1`;
    const [build, other] = await loadCatalogFile(
      json([entry({ name: 'build.v1' }), entry({ name: odd, idPrefix: 'x_v1' })]),
      defaults,
    );
    assert.equal(build?.idPrefix, 'build.v1');
    assert.equal(other?.idPrefix, 'x_v1');
  });

  test('generic companion names drop a start_ prefix', async () => {
    assert.deepEqual(defaultCompanions('start_report', true), {
      result: 'get_report_result',
      cancel: 'cancel_report',
      respond: 'respond_to_report',
    });
    assert.deepEqual(defaultCompanions('translate', false), {
      result: 'get_translate_result',
      cancel: 'cancel_translate',
    });
  });

  test('MCP_TOOLS_FILE replaces the built-in catalog; unset, mining is served', async () => {
    const path = json([entry()]);
    assert.deepEqual(
      (await loadSettings({ MCP_TOOLS_FILE: path })).tools.map((t) => t.name),
      ['start_report'],
    );
    assert.deepEqual(
      (await loadSettings({})).tools.map((t) => t.name),
      ['start_mining'],
    );
  });
});

describe('hooks a catalog entry names', () => {
  test('a hooks module (a function of the environment) overrides parts of the presentation', async () => {
    file(
      'report-hooks.mjs',
      'export const hooks = (env) => ({ noun: "report", summary: (tool, args, who) => ' +
        '[tool, args.year, "for", who, "in", env.REPORT_REGION].join(" ") });\n',
    );
    const [tool] = await loadCatalogFile(json([entry({ hooks: './report-hooks.mjs' })]), defaults, {
      REPORT_REGION: 'eu',
    });
    assert.ok(tool);
    assert.equal(tool.presentation.noun, 'report');
    assert.equal(
      tool.presentation.summary(tool.name, { year: 2026 }, 'bob'),
      'start_report 2026 for bob in eu',
    );
    // What the hooks leave alone stays generic.
    assert.equal(tool.presentation.working({ status: 'running' }), 'Still running.');
  });

  test('a hooks module that is missing or exports no hooks stops the start, naming the entry', async () => {
    file('no-hooks.mjs', 'export const other = 1;\n');
    for (const [hooks, reason] of [
      ['./absent.mjs', /tools\[0\] \(start_report\): hooks: cannot load .*absent\.mjs/],
      ['./no-hooks.mjs', /tools\[0\] \(start_report\): hooks: .*no-hooks\.mjs exports no `hooks`/],
    ] as const) {
      await assert.rejects(loadCatalogFile(json([entry({ hooks })]), defaults), reason);
    }
  });
});

describe('a bad catalog names the file, the entry and the field', () => {
  const cases: [string, () => string, RegExp][] = [
    ['a missing file', () => join(dir, 'nope.yaml'), /nope\.yaml\): cannot read it/],
    ['YAML that does not parse', () => file('bad.yaml', 'tools: [\n'), /bad\.yaml\): not valid YAML/],
    ['no tools', () => file('empty.yaml', 'tools: []\n'), /tools: must NOT have fewer than 1 items/],
    [
      'a missing required field',
      () => json([entry(), { ...entry({ name: 'second' }), workflow: undefined }]),
      /: tools\[1\] \(second\): workflow: is required$/,
    ],
    [
      'an unknown field',
      () => json([entry({ workflowType: 'x' })]),
      /tools\[0\] \(start_report\): workflowType: is not an allowed field/,
    ],
    [
      'a bad tool name',
      () => json([entry({ name: 'has space' })]),
      /tools\[0\] \(has space\): name: must match pattern/,
    ],
    [
      'an inputSchema with an unknown keyword',
      () => json([entry({ inputSchema: { type: 'object', propertiez: {} } })]),
      /tools\[0\] \(start_report\): inputSchema: strict mode: unknown keyword: "propertiez"/,
    ],
    [
      'an inputSchema that is not an object',
      () => json([entry({ inputSchema: { type: 'string' } })]),
      /inputSchema: must have "type": "object"/,
    ],
    [
      'an idempotency argument that is not a string property',
      () => json([entry({ idempotencyKeyArgument: 'year' })]),
      /idempotencyKeyArgument: "year" must be a string property of inputSchema/,
    ],
    [
      'a respond companion without an input signal',
      () => json([entry({ companions: { respond: 'answer_it' } })]),
      /companions\.respond: needs inputSignal/,
    ],
    [
      'two tools with one name',
      () => json([entry(), entry({ name: 'get_report_result' })]),
      /tools\[1\] \(get_report_result\): the tool name "get_report_result" is also used by/,
    ],
    ['a negative wait budget', () => json([entry({ waitBudgetMs: -1 })]), /waitBudgetMs: must be >= 0/],
    [
      'a maximum duration under a second',
      () => json([entry({ maxDurationMs: 10 })]),
      /maxDurationMs: must be >= 1000/,
    ],
    [
      'a maximum duration that is not a whole number of ms',
      () => json([entry({ maxDurationMs: '7d' })]),
      /maxDurationMs: must be integer/,
    ],
    [
      'an unknown task support',
      () => json([entry({ taskSupport: 'always' })]),
      /taskSupport: must be equal to one of/,
    ],
    [
      'a mirrored header on an object property',
      () =>
        json([
          entry({
            inputSchema: {
              type: 'object',
              properties: { where: { type: 'object', 'x-mcp-header': 'Where' } },
            },
          }),
        ]),
      /inputSchema\.properties\.where: x-mcp-header needs a property of type string/,
    ],
    [
      'a mirrored header on the schema itself, not a property',
      () =>
        json([
          entry({
            inputSchema: { type: 'object', 'x-mcp-header': 'Root', properties: { a: { type: 'string' } } },
          }),
        ]),
      /inputSchema: x-mcp-header belongs on a property, not the schema/,
    ],
    [
      'a mirrored header name that is not a token',
      () =>
        json([
          entry({
            inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A B' } } },
          }),
        ]),
      /x-mcp-header must be an HTTP header token/,
    ],
    [
      'two mirrored headers alike but for case',
      () =>
        json([
          entry({
            inputSchema: {
              type: 'object',
              properties: {
                a: { type: 'string', 'x-mcp-header': 'Region' },
                b: { type: 'string', 'x-mcp-header': 'region' },
              },
            },
          }),
        ]),
      /inputSchema\.properties\.b: x-mcp-header "region" is also declared by inputSchema\.properties\.a/,
    ],
    [
      'a secret (writeOnly) property mirrored into a header',
      () =>
        json([
          entry({
            inputSchema: {
              type: 'object',
              properties: { api_key: { type: 'string', writeOnly: true, 'x-mcp-header': 'Api-Key' } },
            },
          }),
        ]),
      /tools\[0\] \(start_report\): inputSchema: the secret \(writeOnly\) argument api_key carries x-mcp-header/,
    ],
    [
      'a nested secret mirrored into a header, through a $ref',
      () =>
        json([
          entry({ name: 'first' }),
          entry({
            name: 'second',
            inputSchema: {
              type: 'object',
              $defs: { Token: { type: 'string', writeOnly: true } },
              properties: {
                auth: {
                  type: 'object',
                  properties: { token: { $ref: '#/$defs/Token', type: 'string', 'x-mcp-header': 'Token' } },
                },
              },
            },
          }),
        ]),
      /tools\[1\] \(second\): inputSchema: the secret \(writeOnly\) argument auth\.token carries x-mcp-header/,
    ],
    [
      "a tool name whose task ids would read as another tool prefix's, and no idPrefix",
      () => json([entry({ name: `x-${'A'.repeat(32)}.v1` })]),
      /tools\[0\] \(x-A{32}\.v1\): name: task ids under "x-A{32}\.v1" would not read back as its own: .* read as ids under the prefix "x" naming a run; give the tool an idPrefix without that ending$/,
    ],
    [
      'a schema keyword the secret check does not walk, naming the tool, the keyword and its place',
      () =>
        json([
          entry({
            inputSchema: {
              type: 'object',
              $defs: { Login: { 'x-vendor-fields': { password: { type: 'string', writeOnly: true } } } },
            },
          }),
        ]),
      /tools\[0\] \(start_report\): inputSchema: #\/\$defs\/Login: unknown keyword "x-vendor-fields"/,
    ],
    [
      'two tools with one idPrefix, naming both',
      () =>
        json([
          entry({ name: 'start_report', idPrefix: 'rep' }),
          entry({ name: 'start_other', idPrefix: 'x' }),
          entry({ name: 'start_review', idPrefix: 'rep' }),
        ]),
      /tools\[2\] \(start_review\): the idPrefix "rep" is also used by MCP_TOOLS_FILE \([^)]*\): tools\[0\] \(start_report\)$/,
    ],
    [
      "an idPrefix that is another tool's name (its default idPrefix)",
      () =>
        json([entry({ name: 'start_report' }), entry({ name: 'start_review', idPrefix: 'start_report' })]),
      /tools\[1\] \(start_review\): the idPrefix "start_report" is also used by .*tools\[0\] \(start_report\)$/,
    ],
  ];
  for (const [name, path, message] of cases) {
    test(name, async () => {
      const p = path();
      await assert.rejects(loadCatalogFile(p, defaults), (err: Error) => {
        assert.match(err.message, /^MCP_TOOLS_FILE \(/);
        assert.match(err.message, message);
        return true;
      });
      await assert.rejects(loadSettings({ MCP_TOOLS_FILE: p }), /^Error: MCP_TOOLS_FILE/);
    });
  }
});

describe('a catalog module', () => {
  test('its `tools`, a function of the environment: hooks given as objects or named as modules', async () => {
    file('module-hooks.mjs', 'export const hooks = { noun: "digest" };\n');
    const path = file(
      'tools.mjs',
      'export const tools = (env) => [\n' +
        `  { ...${JSON.stringify(entry())}, hooks: { summary: (tool) => tool + " in " + env.REPORT_REGION } },\n` +
        `  { ...${JSON.stringify(entry({ name: 'start_digest' }))}, hooks: './module-hooks.mjs' },\n` +
        '];\n',
    );
    const [report, digest] = await loadCatalog(path, defaults, { REPORT_REGION: 'eu' });
    assert.equal(report?.presentation.summary('start_report', {}, 'bob'), 'start_report in eu');
    assert.equal(report?.presentation.noun, 'run');
    assert.equal(report?.taskQueue, 'default-queue');
    assert.equal(digest?.presentation.noun, 'digest');
    assert.deepEqual(
      (await loadSettings({ MCP_TOOLS_FILE: path })).tools.map((t) => t.name),
      ['start_report', 'start_digest'],
    );
  });

  test('is checked as a file is, naming the module, the entry and the field', async () => {
    const cases: [string, RegExp][] = [
      ['export const other = 1;\n', /\): exports no `tools` array or function$/],
      ['export const tools = [];\n', /\): tools: must NOT have fewer than 1 items$/],
      [
        `export const tools = [{ ...${JSON.stringify(entry())}, workflowType: "x" }];\n`,
        /\): tools\[0\] \(start_report\): workflowType: is not an allowed field$/,
      ],
      [
        `export const tools = [{ ...${JSON.stringify(entry())}, inputSchema: { type: "string" } }];\n`,
        /tools\[0\] \(start_report\): inputSchema: must have "type": "object"/,
      ],
      ['export const tools = () => { throw new Error("REPORT_REGION is not set"); };\n', /^REPORT_REGION/],
      ['syntax error (\n', /\): cannot load it: /],
    ];
    for (const [index, [text, reason]] of cases.entries()) {
      const path = file(`bad-${index}.mjs`, text);
      await assert.rejects(loadCatalogModule(path, defaults, {}), (err: Error) => {
        assert.match(err.message, reason);
        if (index < 4) assert.ok(err.message.startsWith(`MCP_TOOLS_FILE (${path}): `), err.message);
        return true;
      });
    }
  });
});

describe('the built-in catalog', () => {
  test('a catalog module found by path: from the sources in the repository, compiled beside the bundle', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    assert.equal(relative(root, builtInCatalogPath()), BUILT_IN_CATALOG);
    assert.equal(
      builtInCatalogPath('file:///app/dist/gateway.mjs'),
      join('/app/dist', BUILT_IN_CATALOG_COMPILED),
    );
  });

  test('start_mining, its approval policy from the environment it is given', async () => {
    const [mining] = await loadCatalog(undefined, defaults, { MCP_APPROVAL_THRESHOLD_HASHES: '1000' });
    assert.equal(mining?.name, 'start_mining');
    assert.equal(mining?.taskQueue, 'default-queue');
    assert.deepEqual(mining?.workflow, 'mineChain');
    assert.deepEqual(mining?.presentation.workflowInput({ difficulty: 10, blocks: 1 }), {
      difficulty: 10,
      blocks: 1,
      data: '',
      requireApproval: true,
      approvalTimeoutMs: 60 * 60 * 1000,
    });
    await assert.rejects(
      loadCatalog(undefined, defaults, { MCP_APPROVAL_TIMEOUT_MS: 'soon' }),
      /^Error: MCP_APPROVAL_TIMEOUT_MS must be an integer/,
    );
  });
});

describe("a catalog given in code (the plugin's `tools`)", () => {
  test('two tools with one idPrefix are refused, naming both', async () => {
    const [first] = await loadCatalogFile(json([entry({ idPrefix: 'rep' })]), defaults);
    const [second] = await loadCatalogFile(
      json([entry({ name: 'start_review', idPrefix: 'rep' })]),
      defaults,
    );
    assert.throws(
      () => new Catalog([first, second].filter((tool) => tool !== undefined)),
      /^Error: tool start_review: the idPrefix "rep" is also used by tool start_report$/,
    );
  });
});

describe('runs of a tool no longer in the catalog', () => {
  test('read generically, with no schema compiled per call: 10,000 polls of removed tools share one validator', () => {
    const catalog = new Catalog([]);
    const first = catalog.toolOfRun('removed_tool_0');
    for (let i = 1; i < 10_000; i++) {
      const tool = catalog.toolOfRun(`removed_tool_${i % 50}`);
      assert.equal(tool.validateArguments, first.validateArguments);
    }
    const tool = catalog.toolOfRun('report_builder');
    assert.equal(tool.name, 'report_builder');
    assert.equal(tool.companions.result, defaultCompanions('report_builder', false).result);
  });
});
