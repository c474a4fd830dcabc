// Large results as MCP resources, against the real stack: a TypeScript workflow whose activity
// stores 20 MB with the authors' helper (activities/artifacts.ts), served through a catalog file;
// the gateway answers resource_link blocks on every answer path and serves resources/read and
// resources/list, on the local-folder store and on a real S3-compatible server (versitygw). Only
// the run's owner reads an artifact, only until it expires; a forged URI is refused; a result too
// large for Temporal is a clear failure instead of a task that never ends.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { ArtifactStore } from '../common/artifact-store.ts';
import { artifactStoreSettings, openArtifactStore } from '../common/artifact-store-settings.ts';
import { artifactActivities, seededBytes } from './fixtures/activities/artifacts.ts';
import { startGateway, type TestGateway } from './support/gateway-server.ts';
import {
  type Framing,
  framedHeaders,
  framedRequest,
  PLAIN_CLIENT,
  rpc,
  rpcResult,
  TASKS_CLIENT,
} from './support/mcp-http.ts';
import { startPythonWorker } from './support/python-worker.ts';
import { startTestS3, type TestS3 } from './support/s3-server.ts';
import { listen } from './support/sse-listen.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const CATALOG = fileURLToPath(new URL('./fixtures/artifacts-catalog.yaml', import.meta.url));
const WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/artifacts.ts', import.meta.url));
const TASK_QUEUE = 'fixture-artifacts';
const TOKENS = { alice: 'alice-artifacts-token-0123456789', bob: 'bob-artifacts-token-0123456789ab' };
const as = (principal: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[principal]}` });
const MB = 1024 * 1024;
const TWENTY_MB = 20 * MB;

/** A client that waits for the result within the tool's budget (no per-client budget of its own). */
const INLINE_CLIENT: Framing = {
  clientInfo: { name: 'gateway-test-inline', version: '1.0.0' },
  clientCapabilities: {},
};

let temporal: TestTemporal;

before(async () => {
  temporal = await startTestTemporal();
});

after(async () => {
  await temporal?.close();
});

interface Stack {
  gateway: TestGateway;
  close(): Promise<void>;
}

/** A worker writing to `store` and a gateway reading the store `env` names, with two principals. */
async function startStack(store: ArtifactStore, env: Record<string, string>): Promise<Stack> {
  const connection = await NativeConnection.connect({ address: temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: WORKFLOWS,
    activities: artifactActivities(store),
  });
  const running = worker.run();
  const gateway = await startGateway({
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    taskQueue: 'not-used-by-the-catalog',
    env: {
      MCP_TOOLS_FILE: CATALOG,
      MCP_AUTH_TOKENS: `alice:${TOKENS.alice},bob:${TOKENS.bob}`,
      // Tasks and start/poll clients get their handle at once; the inline client waits.
      MCP_CLIENT_WAIT_BUDGETS: `${TASKS_CLIENT.clientInfo.name}=0;${PLAIN_CLIENT.clientInfo.name}=0`,
      ...env,
    },
  });
  return {
    gateway,
    async close() {
      await gateway.close();
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

type Block = { type: string; uri?: string; name?: string; mimeType?: string; size?: number; text?: string };

function links(result: Record<string, unknown>): Block[] {
  return ((result.content ?? []) as Block[]).filter((block) => block.type === 'resource_link');
}

/** Polls tasks/get as `principal` until the task leaves working. */
function settledTask(gateway: TestGateway, taskId: string, principal: keyof typeof TOKENS) {
  return eventually(
    async () => {
      const task = await rpcResult(gateway.url, 'tasks/get', { taskId }, TASKS_CLIENT, as(principal));
      return task.status === 'working' ? undefined : task;
    },
    60_000,
    `task ${taskId} to settle`,
  );
}

function readAs(gateway: TestGateway, uri: string, principal: keyof typeof TOKENS) {
  return rpc(gateway.url, 'resources/read', { uri }, TASKS_CLIENT, as(principal));
}

/** The shared checks of one store: every answer path, the read, and every refusal. */
function storeSuite(kind: 'local' | 's3', setUp: () => Promise<{ stack: Stack; teardown(): Promise<void> }>) {
  describe(`the ${kind} artifact store`, () => {
    let stack: Stack;
    let teardown: () => Promise<void>;
    let gateway: TestGateway;
    /** The 20 MB artifact's URI (alice's run), found by the first test. */
    let bigUri: string;

    before(async () => {
      ({ stack, teardown } = await setUp());
      gateway = stack.gateway;
    });
    after(async () => {
      await stack?.close();
      await teardown?.();
    });

    test('20 MB through a task: resource_link in tasks/get, resources/read gives the same bytes and digest', async () => {
      const created = await rpcResult(
        gateway.url,
        'tools/call',
        { name: 'write_report', arguments: { bytes: TWENTY_MB, seed: 11, name: 'big.bin' } },
        TASKS_CLIENT,
        as('alice'),
      );
      assert.equal(created.resultType, 'task');
      const task = await settledTask(gateway, String(created.taskId), 'alice');
      assert.equal(task.status, 'completed', JSON.stringify(task).slice(0, 500));
      const result = task.result as Record<string, unknown>;
      const [link] = links(result);
      assert.ok(link, 'a resource_link block');
      assert.equal(link.name, 'big.bin');
      assert.equal(link.mimeType, 'application/octet-stream');
      assert.equal(link.size, TWENTY_MB);
      assert.match(String(link.uri), new RegExp(`^artifact://${String(created.taskId)}/[A-Za-z0-9_-]+$`));
      const structured = result.structuredContent as { artifacts: { uri: string; sha256: string }[] };
      assert.equal(structured.artifacts[0]?.uri, link.uri);
      bigUri = String(link.uri);

      const expected = seededBytes(TWENTY_MB, 11);
      const started = performance.now();
      const read = await readAs(gateway, bigUri, 'alice');
      const ms = Math.round(performance.now() - started);
      const contents = (read.result?.contents ?? []) as { uri: string; mimeType: string; blob: string }[];
      assert.equal(contents.length, 1, JSON.stringify(read.error));
      const bytes = Buffer.from(contents[0]?.blob ?? '', 'base64');
      assert.equal(bytes.length, TWENTY_MB);
      assert.ok(bytes.equals(expected), 'the bytes read are the bytes written');
      const digest = createHash('sha256').update(bytes).digest('hex');
      assert.equal(digest, structured.artifacts[0]?.sha256);
      assert.equal(contents[0]?.uri, bigUri);
      console.log(`# ${kind}: resources/read of 20 MB in ${ms} ms`);
    });

    test('the same artifact through an SDK client (2025-11-25), read whole', async () => {
      const client = new V1Client({ name: 'gateway-test-v1', version: '1.0.0' });
      await client.connect(new V1Transport(gateway.url, { requestInit: { headers: as('alice') } }));
      try {
        assert.ok(client.getServerCapabilities()?.resources, 'the resources capability is declared');
        const read = await client.readResource({ uri: bigUri });
        const blob = (read.contents[0] as { blob?: string }).blob ?? '';
        assert.equal(Buffer.from(blob, 'base64').length, TWENTY_MB);
      } finally {
        await client.close();
      }
    });

    test('refused to another principal exactly as an unknown artifact: "not found"', async () => {
      const other = await readAs(gateway, bigUri, 'bob');
      const [, taskId, artifactId] = /^artifact:\/\/(.+)\/(.+)$/.exec(bigUri) ?? [];
      // A task id of the same form that no one was ever given.
      const unknownTask = `${String(taskId).slice(0, -6)}AAAAAA`;
      const unknown = await readAs(gateway, `artifact://${unknownTask}/${artifactId}`, 'alice');
      assert.equal(other.error?.code, -32602, JSON.stringify(other.error));
      assert.equal(other.error?.message, 'Resource not found');
      assert.equal(unknown.error?.code, other.error?.code);
      assert.equal(unknown.error?.message, other.error?.message);
      assert.deepEqual(other.error?.data, { uri: bigUri }, 'the data of a resource-not-found: the URI alone');
      assert.equal(other.result, undefined);
    });

    test('a forged or malformed URI is refused', async () => {
      const taskId = /^artifact:\/\/(.+)\/.+$/.exec(bigUri)?.[1];
      const forged = await readAs(gateway, `artifact://${taskId}/${'Z'.repeat(24)}`, 'alice');
      assert.equal(forged.error?.code, -32602);
      assert.equal(
        (forged.error?.data as { reason?: string } | undefined)?.reason,
        'forged_artifact_reference',
      );
      for (const uri of ['file:///etc/passwd', `artifact://${taskId}/../../etc/passwd`, 'artifact://x']) {
        const malformed = await readAs(gateway, uri, 'alice');
        assert.equal(malformed.error?.code, -32602, uri);
        assert.deepEqual(malformed.error?.data, { uri }, "the spec's resource-not-found, naming the URI");
        assert.match(
          String(malformed.error?.message),
          /serves only the artifact:\/\/<task id>\/<artifact id> URIs/,
        );
      }
    });

    test('inline and start/poll answers carry the resource_link too', async () => {
      const inline = await rpcResult(
        gateway.url,
        'tools/call',
        { name: 'write_report', arguments: { bytes: 1000, seed: 3, name: 'small.bin' } },
        INLINE_CLIENT,
        as('alice'),
      );
      assert.equal((inline.structuredContent as { status: string }).status, 'completed');
      assert.equal(links(inline)[0]?.size, 1000);

      const handle = await rpcResult(
        gateway.url,
        'tools/call',
        { name: 'write_report', arguments: { bytes: 2000, seed: 4, name: 'polled.bin' } },
        PLAIN_CLIENT,
        as('alice'),
      );
      const workflowId = String((handle.structuredContent as { workflow_id: string }).workflow_id);
      const polled = await eventually(
        async () => {
          const answer = await rpcResult(
            gateway.url,
            'tools/call',
            { name: 'get_write_report_result', arguments: { workflow_id: workflowId } },
            PLAIN_CLIENT,
            as('alice'),
          );
          return (answer.structuredContent as { status: string }).status === 'running' ? undefined : answer;
        },
        30_000,
        'the polled run to complete',
      );
      const [link] = links(polled);
      assert.equal(link?.size, 2000);
      const read = await readAs(gateway, String(link?.uri), 'alice');
      const blob = ((read.result?.contents ?? []) as { blob: string }[])[0]?.blob ?? '';
      assert.ok(Buffer.from(blob, 'base64').equals(seededBytes(2000, 4)));
    });

    test('a pushed result (subscriptions/listen) carries the resource_link too', async () => {
      const created = await rpcResult(
        gateway.url,
        'tools/call',
        { name: 'write_report', arguments: { bytes: 3000, seed: 8, name: 'pushed.bin' } },
        TASKS_CLIENT,
        as('alice'),
      );
      const taskId = String(created.taskId);
      const stream = await listen(gateway.url, { taskIds: [taskId] }, TASKS_CLIENT, as('alice'));
      try {
        let completed: Record<string, unknown> | undefined;
        while (!completed) {
          const message = await stream.next(30_000);
          assert.ok(message, 'the stream ended before the task completed');
          const task = message.params as Record<string, unknown> | undefined;
          if (message.method === 'notifications/tasks' && task?.status === 'completed') completed = task;
        }
        const [link] = links(completed.result as Record<string, unknown>);
        assert.equal(link?.name, 'pushed.bin');
        assert.equal(link?.size, 3000);
        assert.match(String(link?.uri), new RegExp(`^artifact://${taskId}/`));
      } finally {
        stream.close();
      }
    });

    test("resources/list names the caller's artifacts only", async () => {
      const listed = await eventually(
        async () => {
          const page = await rpcResult(gateway.url, 'resources/list', {}, TASKS_CLIENT, as('alice'));
          const uris = (page.resources as { uri: string }[]).map((r) => r.uri);
          return uris.includes(bigUri) ? uris : undefined;
        },
        20_000,
        "alice's artifacts to be listed",
      );
      assert.ok(listed.length >= 2);
      const bobs = await rpcResult(gateway.url, 'resources/list', {}, TASKS_CLIENT, as('bob'));
      assert.deepEqual(bobs.resources, []);
    });

    test('after expiry the artifact is "not found"', async () => {
      const created = await rpcResult(
        gateway.url,
        'tools/call',
        { name: 'write_report', arguments: { bytes: 4096, seed: 5, name: 'short.bin', ttlSeconds: 1 } },
        TASKS_CLIENT,
        as('alice'),
      );
      const task = await settledTask(gateway, String(created.taskId), 'alice');
      const uri = String(links(task.result as Record<string, unknown>)[0]?.uri);
      const expiresAt = Date.parse(
        (task.result as { structuredContent: { artifacts: { expiresAt: string }[] } }).structuredContent
          .artifacts[0]?.expiresAt ?? '',
      );
      const gone = await eventually(
        async () => {
          const read = await readAs(gateway, uri, 'alice');
          return read.error ? { read, at: Date.now() } : undefined;
        },
        10_000,
        'the artifact to expire',
      );
      assert.ok(gone.at >= expiresAt, 'served until its expiry');
      assert.equal(gone.read.error?.code, -32602);
      assert.equal(gone.read.error?.message, 'Resource not found');
    });
  });
}

storeSuite('local', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'test-artifacts-'));
  const env = { MCP_ARTIFACT_STORE: 'local', MCP_ARTIFACT_DIR: dir };
  const stack = await startStack(await openArtifactStore(artifactStoreSettings(env)), env);
  return { stack, teardown: async () => rmSync(dir, { recursive: true, force: true }) };
});

storeSuite('s3', async () => {
  const s3: TestS3 = await startTestS3();
  const stack = await startStack(await openArtifactStore(artifactStoreSettings(s3.env)), s3.env);
  return { stack, teardown: () => s3.close() };
});

describe('Python workflows: the same reference shape into the local store, and a result too large', () => {
  let stack: Stack;
  let dir: string;
  let python: ReturnType<typeof startPythonWorker>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'test-artifacts-'));
    python = startPythonWorker({
      ...temporal.env,
      TEMPORAL_TASK_QUEUE: 'fixture-python-artifacts',
      MCP_ARTIFACT_DIR: dir,
    });
    const env = { MCP_ARTIFACT_DIR: dir };
    stack = await startStack(await openArtifactStore(artifactStoreSettings(env)), env);
    await python.ready;
  });
  after(async () => {
    await stack?.close();
    await python?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('its reference becomes a resource_link, and resources/read gives its bytes', async () => {
    const size = 3 * MB;
    const created = await rpcResult(
      stack.gateway.url,
      'tools/call',
      { name: 'python_report', arguments: { bytes: size, name: 'from-python.txt' } },
      TASKS_CLIENT,
      as('alice'),
    );
    const task = await settledTask(stack.gateway, String(created.taskId), 'alice');
    assert.equal(task.status, 'completed', JSON.stringify(task).slice(0, 300));
    const [link] = links(task.result as Record<string, unknown>);
    assert.equal(link?.name, 'from-python.txt');
    assert.equal(link?.mimeType, 'text/plain');
    assert.equal(link?.size, size);
    const read = await readAs(stack.gateway, String(link?.uri), 'alice');
    const blob = ((read.result?.contents ?? []) as { blob: string }[])[0]?.blob ?? '';
    const line = Buffer.from('python artifact bytes 0123456789\n');
    const expected = Buffer.alloc(size);
    for (let at = 0; at < size; at += line.length) line.copy(expected, at);
    assert.ok(Buffer.from(blob, 'base64').equals(expected), 'the bytes the Python activity wrote');
  });
  test('4 MiB returned inline by the Python workflow: a failed task naming the limit, not one left working', async () => {
    const created = await rpcResult(
      stack.gateway.url,
      'tools/call',
      { name: 'python_inline_blob', arguments: { bytes: 4 * MB } },
      TASKS_CLIENT,
      as('alice'),
    );
    const task = await settledTask(stack.gateway, String(created.taskId), 'alice');
    assert.equal(task.status, 'failed', JSON.stringify(task).slice(0, 300));
    const error = task.error as { message: string; data: { reason: string } };
    assert.equal(error.data.reason, 'result_too_large');
    assert.match(error.message, /2 MB/);
    // Within the grace (15 minutes by default) the answer is given and the run left as it is.
    const described = await temporal.client.workflow.getHandle(String(created.taskId)).describe();
    assert.equal(described.status.name, 'RUNNING', 'no read ended it');
  });
});

describe('results too large to keep inline', () => {
  let stack: Stack;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'test-artifacts-'));
    // No grace: the first poll that sees a run stuck on its result ends it.
    const env = { MCP_ARTIFACT_DIR: dir, MCP_STUCK_RUN_GRACE_MS: '0' };
    stack = await startStack(await openArtifactStore(artifactStoreSettings(env)), env);
  });
  after(async () => {
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const size of [3 * MB, 4 * MB + 1024]) {
    test(`${size} bytes inline: a failed task naming the limit, not one left working`, async () => {
      const created = await rpcResult(
        stack.gateway.url,
        'tools/call',
        { name: 'inline_blob', arguments: { bytes: size } },
        TASKS_CLIENT,
        as('alice'),
      );
      const task = await settledTask(stack.gateway, String(created.taskId), 'alice');
      assert.equal(task.status, 'failed', JSON.stringify(task).slice(0, 300));
      const error = task.error as { message: string; data: { reason: string } };
      assert.equal(error.data.reason, 'result_too_large');
      assert.match(error.message, /2 MB/);
      assert.match(error.message, /artifact/);
      const described = await temporal.client.workflow.getHandle(String(created.taskId)).describe();
      assert.equal(described.status.name, 'TERMINATED', 'the run does not retry forever');
    });
  }

  test('per-poll bytes on the wire for a 1 MB result: inline vs artifact reference', async () => {
    const polled = async (name: string, args: Record<string, unknown>) => {
      const created = await rpcResult(
        stack.gateway.url,
        'tools/call',
        { name, arguments: args },
        TASKS_CLIENT,
        as('alice'),
      );
      const taskId = String(created.taskId);
      await settledTask(stack.gateway, taskId, 'alice');
      const response = await fetch(stack.gateway.url, {
        method: 'POST',
        headers: {
          ...framedHeaders('tasks/get', { taskId }),
          ...as('alice'),
        },
        body: JSON.stringify(framedRequest('tasks/get', { taskId })),
      });
      return (await response.arrayBuffer()).byteLength;
    };
    const inline = await polled('inline_blob', { bytes: MB });
    const reference = await polled('write_report', { bytes: MB, seed: 9, name: 'one-mb.bin' });
    console.log(
      `# tasks/get of a completed 1 MiB result: inline ${inline} bytes, artifact reference ${reference} bytes`,
    );
    assert.ok(inline > 2 * MB, 'inline, the result is sent twice (text and structuredContent)');
    assert.ok(reference < 4096, 'a reference answer is small');
  });
});
