// The docs' examples cannot rot: every fenced TypeScript, Python, YAML or Go block of README.md and
// docs/*.md is marked, on the line before it, either `<!-- file: examples/… -->` (the block is that
// file, word for word) or `<!-- fragment -->` (an excerpt, not a file). The files under examples/
// are checked as the project would use them: the TypeScript type-checks under tsconfig.json, the
// catalogs load with the gateway's own loader and name the queue their worker polls, the Python
// compiles, the Compose override names services and folders that exist. No Temporal, no network.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { parse } from 'yaml';
import { loadCatalogFile, loadCatalogModule } from '../gateway/mcp/catalog-file.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : [])),
];
/** Languages whose blocks are code a reader may copy as a file. */
const CODE = new Set(['ts', 'typescript', 'python', 'py', 'yaml', 'yml', 'go']);
const defaults = { taskQueue: 'mcp-mining', waitBudgetMs: 20_000 };

interface Block {
  doc: string;
  line: number;
  lang: string;
  marker: string | undefined;
  body: string;
}

/** The fenced blocks of a Markdown file, each with the HTML comment on the line before it. */
function blocks(doc: string): Block[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    assert.ok(end > i, `${doc}:${i + 1}: a fence that never closes`);
    const marker = /^<!-- (.+) -->$/.exec(lines[i - 1] ?? '')?.[1];
    found.push({
      doc,
      line: i + 1,
      lang: open[1] as string,
      marker,
      body: lines.slice(i + 1, end).join('\n'),
    });
    i = end;
  }
  return found;
}

function examples(dir = 'examples'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? examples(`${dir}/${entry.name}`) : [`${dir}/${entry.name}`],
  );
}

const allBlocks = DOCS.flatMap(blocks);
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('doc examples', () => {
  test('every code block is marked: a file of examples/ or a fragment', () => {
    const unmarked = allBlocks
      .filter((b) => CODE.has(b.lang) && !/^(file: \S+|fragment)$/.test(b.marker ?? ''))
      .map((b) => `${b.doc}:${b.line} (${b.lang})`);
    assert.deepEqual(unmarked, [], 'mark each with <!-- file: examples/… --> or <!-- fragment -->');
  });

  test('a block marked as a file is that file, word for word', () => {
    const marked = allBlocks.filter((b) => b.marker?.startsWith('file: '));
    assert.ok(marked.length >= 8, `only ${marked.length} blocks are files`);
    for (const block of marked) {
      const path = (block.marker as string).slice('file: '.length);
      assert.ok(existsSync(join(ROOT, path)), `${block.doc}:${block.line}: ${path} does not exist`);
      assert.equal(`${block.body}\n`, read(path), `${block.doc}:${block.line} differs from ${path}`);
    }
  });

  test('every example file is shown or linked by the docs', () => {
    const text = DOCS.map(read).join('\n');
    const orphans = examples().filter(
      (path) => !text.includes(path) && !text.includes(path.replace(/[^/]+$/, '')),
    );
    assert.deepEqual(orphans, []);
  });

  test('the TypeScript examples type-check under tsconfig.json', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) =>
          assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
      },
    );
    assert.ok(config);
    const files = examples().filter((p) => p.endsWith('.ts'));
    assert.ok(
      files.every((f) => config.fileNames.includes(join(ROOT, f))),
      'examples/ is in tsconfig.json include',
    );
    const program = ts.createProgram(
      files.map((f) => join(ROOT, f)),
      config.options,
    );
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file
        ? `${relative(ROOT, d.file.fileName)}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})`
        : '';
      return `${where}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    assert.deepEqual(diagnostics, []);
  });

  test('the TypeScript report: its catalog loads and names the queue and workflow its worker runs', async () => {
    const [tool] = await loadCatalogFile(join(ROOT, 'examples/report-workflow/catalog.yaml'), defaults);
    assert.equal(tool?.name, 'start_report');
    assert.match(read('examples/report-workflow/worker.ts'), new RegExp(`TASK_QUEUE = '${tool?.taskQueue}'`));
    assert.match(
      read('examples/report-workflow/report.ts'),
      new RegExp(`export async function ${tool?.workflow}\\(`),
    );
    const [fromModule] = await loadCatalogModule(
      join(ROOT, 'examples/report-workflow/catalog-module.ts'),
      defaults,
      {},
    );
    assert.equal(fromModule?.workflow, tool?.workflow);
    assert.equal(fromModule?.taskQueue, tool?.taskQueue);
  });

  test('the catalog reference with every field loads', async () => {
    const [tool] = await loadCatalogFile(join(ROOT, 'examples/report-workflow/every-field.yaml'), defaults);
    assert.equal(tool?.name, 'start_report');
    assert.equal(tool?.presentation.noun, 'report');
  });

  test('the Python worker compiles, and its catalog names its own queue and workflow', async () => {
    const python = examples().filter((p) => p.endsWith('.py'));
    await promisify(execFile)(
      'python3',
      ['-B', '-c', 'import ast,sys\nfor p in sys.argv[1:]: ast.parse(open(p).read(), p)', ...python],
      {
        cwd: ROOT,
      },
    );
    const [tool] = await loadCatalogFile(join(ROOT, 'examples/python-worker/catalog.yaml'), defaults);
    assert.notEqual(tool?.taskQueue, defaults.taskQueue, 'a queue of its own');
    assert.match(read('examples/python-worker/worker.py'), new RegExp(`TASK_QUEUE = "${tool?.taskQueue}"`));
    assert.match(
      read('examples/python-worker/report_workflow.py'),
      new RegExp(`@workflow\\.defn\\(name="${tool?.workflow}"\\)`),
    );
    assert.notEqual(tool?.workflow, 'buildReport', 'not the TypeScript example’s workflow type');
    assert.match(read('examples/python-worker/requirements.txt'), /^temporalio==\d+\.\d+\.\d+$/m);
  });

  test('the Compose override names services of docker-compose.yml and folders that exist', () => {
    const stack = parse(read('docker-compose.yml')) as { services: Record<string, unknown> };
    const override = parse(read('examples/compose-worker/docker-compose.override.yml')) as {
      services: Record<
        string,
        { depends_on?: Record<string, unknown>; volumes?: string[]; environment?: Record<string, string> }
      >;
    };
    for (const [name, service] of Object.entries(override.services)) {
      assert.ok(!(name in stack.services), `${name} is a new service`);
      for (const needed of Object.keys(service.depends_on ?? {})) assert.ok(needed in stack.services, needed);
      for (const volume of service.volumes ?? []) {
        const host = volume.split(':')[0] as string;
        if (host.startsWith('.')) assert.ok(existsSync(join(ROOT, host)), `${volume}: ${host} is missing`);
      }
      assert.match(service.environment?.TEMPORAL_ADDRESS ?? '', /^temporal:7233$/);
    }
  });
});
