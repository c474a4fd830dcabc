// The package as a user gets it: the packed tarball (test/support/packed-package.ts) installed in a
// fresh folder with only the peers docs/embedding.md names (`npm install <tarball> fastify
// @temporalio/client`), beside examples/embedded/server.ts; that app runs on Node.js 24 and 26
// against a real Temporal dev server and the mining worker. Real clients drive its one endpoint: the
// host's quick tool answered inline, the catalog's mining tool run as a task to its end, by the SDK v1
// client with 2025-11-25 tasks (SEP-1686) and by a 2026-07-28 client with the Tasks extension. The
// host's own route and the probes it mounted under its prefix answer too. The folder holds no
// dev-only package (its size is printed), and an optional feature configured without its optional
// peer stops the app naming the package to install. The example and a host file using every type of
// the public API (test/fixtures/embedded-host) type-check there under `strict` without skipLibCheck,
// the package adding no error to those of its dependencies' own declarations. No optional peer is
// installed: the declarations must stand without them, and the guard holds them out of every
// declaration an entry reaches, so a host that installs them has nothing more to check.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { declarationProblems } from '../scripts/declaration-imports.ts';
import { spawnTestProcess, type TestProcess } from './support/child-process.ts';
import { connectV1, connectV2, structured } from './support/mcp-clients.ts';
import { PROTOCOL_VERSION, rawDispatch, TASKS_CLIENT } from './support/mcp-http.ts';
import {
  hostTypeCheck,
  installedDeclarations,
  installedSize,
  installPacked,
  packedTarball,
} from './support/packed-package.ts';
import { startTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startWorker, type WorkerProcess } from './support/worker-process.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HOST_FIXTURE = fileURLToPath(new URL('./fixtures/embedded-host/', import.meta.url));
const TASK_QUEUE = `embedded-example-${process.pid}`;
/** Small work: the mining tool is a task because the example's wait budget is 0, not because it is slow. */
const MINING = { difficulty: 8, blocks: 2, data: 'embedded' };
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** The peers docs/embedding.md tells a host to install, at the ranges the package declares. */
const HOST_PEERS = ['fastify', '@temporalio/client'].map(
  (name) => `${name}@${manifest.peerDependencies[name]}`,
);

let temporal: TestTemporal;
let worker: WorkerProcess;
let folder: string;

/** The example's folder: the tarball installed with the documented peers, server.ts, and the typed host file. */
async function installExample(into: string): Promise<void> {
  await installPacked(into, HOST_PEERS);
  copyFileSync(join(ROOT, 'examples/embedded/server.ts'), join(into, 'server.ts'));
  for (const file of ['tsconfig.json', 'host.ts']) copyFileSync(join(HOST_FIXTURE, file), join(into, file));
}

/** The bin folder of the project's Node.js of `line` (scripts/install-node.sh). */
async function nodeOf(line: 24 | 26): Promise<string> {
  const { stdout } = await run('bash', ['scripts/install-node.sh', String(line)], { cwd: ROOT });
  return join(stdout.trim(), 'node');
}

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'embedded-example-'));
  // Temporal and the worker start while the package is packed and installed.
  const installed = installExample(folder);
  installed.catch(() => {});
  temporal = await startTestTemporal();
  worker = startWorker({
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MCP_DATA_DIR: join(folder, 'worker'),
  });
  await Promise.all([installed, worker.ready]);
});

after(async () => {
  await worker?.stop().catch(() => {});
  await temporal?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test('the tarball holds the built package, its workflow side and its docs, nothing of tests, bench or fixtures', () => {
  const installed = join(folder, 'node_modules/temporal-mcp-gateway');
  const files = readdirSync(installed, { recursive: true, encoding: 'utf8' });
  for (const file of [
    'dist/package/index.js',
    'dist/package/types/gateway/index.d.ts',
    'dist/package/workflow.js',
    'dist/package/types/workflows/package.d.ts',
    'docs/embedding.md',
    'CHANGELOG.md',
    'LICENSE',
  ])
    assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
  assert.deepEqual(
    files.filter((file) => /^(test|bench|scripts|examples)\b|fixtures|\.test\./.test(file)),
    [],
  );
});

test('the host app installs the plugin and its peers only: no dev-only package, no optional peer', (t) => {
  const present = (name: string) => existsSync(join(folder, 'node_modules', name, 'package.json'));
  // @types/node excepted: protobufjs (under @temporalio/client) depends on it.
  const devOnly = Object.keys(manifest.devDependencies).filter(
    (name) => !(name in manifest.peerDependencies) && name !== '@types/node' && present(name),
  );
  assert.deepEqual(devOnly, [], 'dev-only packages installed');
  for (const optional of ['@aws-sdk/client-s3', '@temporalio/interceptors-opentelemetry'])
    assert.equal(present(optional), false, `${optional} is an optional peer`);
  for (const peer of ['fastify', '@temporalio/client', '@temporalio/workflow'])
    assert.ok(present(peer), `${peer} installed`);
  const size = installedSize(folder);
  t.diagnostic(`host app installed size: ${size.text}`);
});

test('the installed declarations name only the dependencies and required peers the host has', () => {
  const { files, entries, manifest } = installedDeclarations(folder);
  assert.deepEqual(entries, ['gateway/index.d.ts', 'workflows/package.d.ts']);
  assert.deepEqual(declarationProblems(files, entries, manifest), []);
});

test("the host app type-checks under strict without skipLibCheck: no error of the package's", async (t) => {
  const { errors, added, named } = await hostTypeCheck(folder, 'tsconfig.json');
  assert.deepEqual(added, [], errors.join('\n'));
  t.diagnostic(`the declarations name ${named.join(', ')}`);
  // Temporal's SDK 1.24 declarations fail this check by themselves, with or without the package.
  for (const line of errors) t.diagnostic(`theirs: ${line}`);
});

test('npm publish --dry-run accepts the tarball: a publishable manifest (not private, licence, files)', async (t) => {
  const { stdout, stderr } = await run('npm', ['publish', '--dry-run', await packedTarball()], {
    cwd: folder,
  });
  assert.match(stdout, /^\+ temporal-mcp-gateway@\d+\.\d+\.\d+$/m);
  for (const line of stderr.match(/^npm notice (package size|unpacked size|total files):.*$/gm) ?? [])
    t.diagnostic(line.replace(/^npm notice /, 'npm publish --dry-run: '));
});

test('S3 artifacts configured without the AWS SDK: the app stops, naming the package to install', async () => {
  const failed = await run(await nodeOf(24), ['server.ts'], {
    cwd: folder,
    env: {
      ...process.env,
      ...temporal.env,
      PORT: '0',
      MCP_SERVER_SECRET: 'embedded-example-secret-0123456789abcdef',
      MCP_DATA_DIR: join(folder, 'no-s3'),
      MCP_ARTIFACT_STORE: 's3',
      MCP_ARTIFACT_S3_BUCKET: 'reports',
    },
    timeout: 30_000,
  }).then(
    () => assert.fail('the app started without the AWS SDK'),
    (err: { code?: number; stderr?: string }) => err,
  );
  assert.notEqual(failed.code, 0);
  assert.match(
    String(failed.stderr),
    /MCP_ARTIFACT_STORE=s3 needs the package @aws-sdk\/client-s3, which is not installed: npm install @aws-sdk\/client-s3/,
  );
});

for (const line of [24, 26] as const) {
  describe(`the example app from the tarball on Node.js ${line}`, () => {
    let app: TestProcess;
    let url: URL;

    before(async () => {
      app = spawnTestProcess({
        name: `example on Node.js ${line}`,
        command: await nodeOf(line),
        args: ['server.ts'],
        cwd: folder,
        env: {
          ...temporal.env,
          TEMPORAL_TASK_QUEUE: TASK_QUEUE,
          PORT: '0',
          MCP_WAIT_BUDGET_MS: '0',
          MCP_SERVER_SECRET: 'embedded-example-secret-0123456789abcdef',
          MCP_DATA_DIR: join(folder, 'gateway'),
        },
        readyText: '/agents/mcp',
        readyTimeoutMs: 30_000,
      });
      await app.ready;
      const endpoint = /MCP endpoint: (http:\/\/[^\s"]+\/agents\/mcp)/.exec(app.output())?.[1];
      assert.ok(endpoint, app.output());
      url = new URL(endpoint);
    });

    after(async () => {
      const exit = await app?.stop('SIGTERM');
      assert.equal(exit?.killed, false, 'the app closes by itself on SIGTERM');
    });

    test("the host's own route and the probes it mounted under /agents", async () => {
      assert.deepEqual(await (await fetch(new URL('/', url))).json(), {
        service: 'example shop',
        mcp: '/agents/mcp',
      });
      const ready = await fetch(new URL('/agents/readyz', url));
      assert.equal(ready.status, 200);
      assert.equal((await fetch(new URL('/readyz', url))).status, 404);
    });

    test('a 2025-11-25 client (SDK v1): the quick tool inline, the mining tool as a SEP-1686 task to its result', async () => {
      const client = await connectV1(url);
      try {
        const { tools } = await client.listTools();
        const taskSupport = (name: string) =>
          (tools.find((tool) => tool.name === name) as { execution?: { taskSupport?: string } } | undefined)
            ?.execution?.taskSupport;
        assert.equal(taskSupport('count_words'), 'forbidden');
        assert.equal(taskSupport('start_mining'), 'optional');
        const quick = await client.callTool({ name: 'count_words', arguments: { text: 'one two three' } });
        assert.deepEqual(quick.structuredContent, { words: 3 });
        const bad = await client
          .callTool({ name: 'count_words', arguments: { text: 3 } })
          .catch((err) => err);
        assert.match(String(bad), /text/);

        const messages: { type: string; task?: { taskId: string }; result?: unknown }[] = [];
        const stream = client.experimental.tasks.callToolStream(
          { name: 'start_mining', arguments: MINING },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        );
        for await (const message of stream) messages.push(message as (typeof messages)[number]);
        assert.equal(messages[0]?.type, 'taskCreated', JSON.stringify(messages[0]));
        const last = messages.at(-1);
        assert.equal(last?.type, 'result', JSON.stringify(last));
        const content = structured(last?.result);
        assert.equal(content.status, 'completed');
        assert.equal(content.workflow_id, messages[0]?.task?.taskId);
      } finally {
        await client.close();
      }
    });

    test('a 2026-07-28 client with the Tasks extension: the quick tool inline, the mining tool as a task to its result', async () => {
      const client = await connectV2(url, { tasks: true });
      const session = createTaskSessionFromClient(client, {
        endpointId: `embedded-${line}`,
        rawDispatch: rawDispatch(url),
        v2RequestFraming: {
          protocolVersion: PROTOCOL_VERSION,
          clientInfo: TASKS_CLIENT.clientInfo,
          clientCapabilities: TASKS_CLIENT.clientCapabilities as never,
        },
      });
      try {
        const quick = await client.callTool({ name: 'count_words', arguments: { text: 'a b' } });
        assert.deepEqual(quick.structuredContent, { words: 2 });
        const execution = await session.callTool('start_mining', MINING);
        assert.equal(execution.kind, 'task', 'the call became a task');
        const { outcome } = await execution.settle();
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
        const json = structured(resultFromTaskOutcome(outcome));
        assert.equal(json.status, 'completed');
        assert.equal((json.result as { blocks: unknown[] }).blocks.length, MINING.blocks);
      } finally {
        await session.close();
        await client.close();
      }
    });
  });
}
