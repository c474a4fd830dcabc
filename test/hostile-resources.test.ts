// Resources as an attacker would try them, black box, against a compiled gateway process on real
// Temporal with the local artifact store and a real authorization server: a reference copied into
// another principal's result or into a later run of the same slot, a forged id, a FIFO, links to elsewhere and to /dev/zero in the store's
// folder, resources/list with a token lacking a tool's scope, 30 concurrent reads of a 24 MiB
// artifact with the gateway's memory sampled and /healthz asked throughout, and reads whose client
// leaves in the middle of the answer giving their share of the read budget back.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { LocalArtifactStore } from '../common/local-artifact-store.ts';
import { taskRun, taskSlot } from '../gateway/temporal/task-ids.ts';
import { freePort } from '../launcher/free-port.ts';
import { artifactActivities, seededBytes } from './fixtures/activities/artifacts.ts';
import { type GatewayProcess, startGatewayProcess } from './support/gateway-process.ts';
import { TEST_SERVER_SECRET } from './support/gateway-server.ts';
import { type Framing, framedHeaders, framedRequest, rpc, rpcResult } from './support/mcp-http.ts';
import {
  type AsClient,
  signingKey,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from './support/oauth-server.ts';
import { eventually, startTestTemporal, type TestTemporal } from './support/temporal.ts';

const WORKFLOWS = fileURLToPath(new URL('./fixtures/workflows/artifacts.ts', import.meta.url));
const TASK_QUEUE = `hostile-resources-${process.pid}`;
const TOKENS = { alice: 'alice-hostile-resources-0123456789', bob: 'bob-hostile-resources-0123456789ab' };
const as = (principal: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[principal]}` });
const AGENT: AsClient = {
  id: 'agent',
  secret: 'agent-secret-hostile-resources',
  scope: 'mcp:tools report:read',
};
const MIB = 1024 * 1024;
/** Waits for the result within the tool's budget. */
const INLINE: Framing = {
  clientInfo: { name: 'hostile-resources-inline', version: '1.0.0' },
  clientCapabilities: {},
};

let temporal: TestTemporal;
let authServer: TestAuthorizationServer;
let gateway: GatewayProcess;
let worker: { shutdown(): void; running: Promise<void>; connection: NativeConnection };
let dir: string;
let resource: string;

function writeCatalog(): string {
  const file = join(dir, 'tools.json');
  const tool = { taskQueue: TASK_QUEUE, waitBudgetMs: 20_000 };
  const report = {
    type: 'object',
    properties: {
      bytes: { type: 'integer', minimum: 0 },
      seed: { type: 'integer', default: 7 },
      name: { type: 'string', default: 'r.bin' },
    },
    required: ['bytes'],
  };
  const reflect = { type: 'object', properties: { value: {} }, required: ['value'] };
  const tools = [
    {
      ...tool,
      name: 'write_report',
      description: 'Writes seeded bytes as an artifact.',
      workflow: 'artifactReport',
      inputSchema: report,
    },
    {
      ...tool,
      name: 'reflect_json',
      description: 'Returns its input.',
      workflow: 'reflectJson',
      inputSchema: reflect,
    },
    {
      ...tool,
      name: 'guarded_report',
      description: 'Writes seeded bytes as an artifact; needs report:read.',
      workflow: 'artifactReport',
      inputSchema: report,
      scopes: ['report:read'],
    },
  ];
  writeFileSync(file, JSON.stringify({ tools }));
  return file;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hostile-resources-'));
  const artifacts = join(dir, 'artifacts');
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const key = await signingKey('hostile-resources');
  temporal = await startTestTemporal();
  authServer = await startAuthorizationServer({
    keys: [key],
    clients: [AGENT],
    resources: [resource],
    scope: 'mcp:tools report:read',
    ttlSeconds: 300,
  });
  const connection = await NativeConnection.connect({ address: temporal.address });
  const created = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: WORKFLOWS,
    activities: artifactActivities(new LocalArtifactStore(artifacts)),
  });
  worker = { shutdown: () => created.shutdown(), running: created.run(), connection };
  gateway = await startGatewayProcess(port, {
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MCP_SERVER_SECRET: TEST_SERVER_SECRET,
    MCP_DATA_DIR: join(dir, 'data'),
    MCP_TOOLS_FILE: writeCatalog(),
    MCP_ARTIFACT_DIR: artifacts,
    MCP_AUTH_TOKENS: `alice:${TOKENS.alice},bob:${TOKENS.bob}`,
    MCP_OAUTH_ISSUER: authServer.issuer,
    MCP_OAUTH_AUDIENCE: resource,
    MCP_OAUTH_REQUIRED_SCOPES: 'mcp:tools',
    // Two slots: one principal's runs share a slot's workflow id soon (no test here starts runs at once).
    MCP_MAX_RUNNING_TASKS: '2',
  });
});

after(async () => {
  await gateway?.stop();
  worker?.shutdown();
  await worker?.running.catch(() => {});
  await worker?.connection.close();
  await authServer?.stop();
  await temporal?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Completed {
  taskId: string;
  artifacts: { uri: string; size: number; sha256: string }[];
  result: Record<string, unknown>;
}

async function call(
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Completed> {
  const answer = await rpcResult(gateway.url, 'tools/call', { name, arguments: args }, INLINE, headers);
  const content = answer.structuredContent as {
    status: string;
    workflow_id: string;
    result: never;
    artifacts?: never[];
  };
  assert.equal(content.status, 'completed', JSON.stringify(answer).slice(0, 300));
  return { taskId: content.workflow_id, artifacts: content.artifacts ?? [], result: content.result };
}

const read = (uri: string, headers: Record<string, string>) =>
  rpc(gateway.url, 'resources/read', { uri }, INLINE, headers);
const reasonOf = (answer: Awaited<ReturnType<typeof read>>) =>
  (answer.error?.data as { reason?: string } | undefined)?.reason ??
  (answer.error ? `code ${answer.error.code}` : 'served');

describe('references that are not the run own', () => {
  test("a reference to alice's artifact copied into bob's result names nothing; alice still reads it", async () => {
    const alices = await call('write_report', { bytes: 4096, seed: 11 }, as('alice'));
    const [mine] = alices.artifacts;
    assert.ok(mine);
    const reference = (alices.result as { report: { id: string } }).report;
    const bobs = await call('reflect_json', { value: { stolen: reference } }, as('bob'));
    const copied = `artifact://${bobs.taskId}/${reference.id}`;
    assert.deepEqual(
      bobs.artifacts.map((a) => a.uri),
      [copied],
      'the gateway links the copied reference',
    );
    const stolen = await read(copied, as('bob'));
    assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen).slice(0, 300));
    assert.deepEqual(stolen.error?.data, { uri: copied }, 'resource not found, as any unknown artifact');
    const own = await read(mine.uri, as('alice'));
    const blob = (own.result?.contents as { blob: string }[] | undefined)?.[0]?.blob ?? '';
    assert.ok(Buffer.from(blob, 'base64').equals(seededBytes(4096, 11)));
    assert.equal(
      (await read(mine.uri, as('bob'))).error?.code,
      -32602,
      "bob cannot read alice's task either",
    );
  });

  test("a later run of alice's in the same slot returning her earlier run's reference names nothing: artifacts live under the run", async () => {
    const earlier = await call('write_report', { bytes: 2048, seed: 13 }, as('alice'));
    const reference = (earlier.result as { report: { id: string } }).report;
    // Under the cap a slot's workflow id is reused run after run: a later run lands in it again.
    let later: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 40 && !later; i++) {
      const run = await call('reflect_json', { value: { copied: reference } }, as('alice'));
      if (taskSlot(run.taskId) === taskSlot(earlier.taskId)) later = run;
    }
    assert.ok(later, 'a later run of alice in the same slot');
    const copied = `artifact://${later.taskId}/${reference.id}`;
    const answer = await read(copied, as('alice'));
    assert.equal(answer.error?.code, -32602, JSON.stringify(answer).slice(0, 300));
    assert.deepEqual(answer.error?.data, { uri: copied }, 'resource not found, as any unknown artifact');
    assert.ok(
      !(await read(earlier.artifacts[0]?.uri ?? '', as('alice'))).error,
      'the earlier run still serves it',
    );
  });

  test('a forged id in the caller own run: forged_artifact_reference', async () => {
    const alices = await call('write_report', { bytes: 10, seed: 12 }, as('alice'));
    const forged = await read(`artifact://${alices.taskId}/${'Q'.repeat(24)}`, as('alice'));
    assert.equal(reasonOf(forged), 'forged_artifact_reference');
  });
});

describe('what the store folder may hold', () => {
  test('a FIFO, a link to /dev/zero and a link out of the folder are refused at once, never read', async () => {
    const ids = {
      fifo: 'fifofifofifofifofifo01',
      zero: 'devzerodevzerodevzero1',
      out: 'linkoutlinkoutlinkout1',
    };
    const sha256 = 'a'.repeat(64);
    const refs = Object.values(ids).map((id) => ({
      type: 'mcp_artifact',
      id,
      name: `${id}.bin`,
      contentType: 'application/octet-stream',
      size: 1024,
      sha256,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    }));
    const run = await call('reflect_json', { value: { files: refs } }, as('alice'));
    // The store keeps a run's artifacts under its run id (the one the task id names).
    const folder = join(
      dir,
      'artifacts',
      taskRun(Buffer.from(TEST_SERVER_SECRET), 'alice', run.taskId).runId ?? '',
    );
    mkdirSync(folder, { recursive: true });
    execFileSync('mkfifo', [join(folder, ids.fifo)]);
    symlinkSync('/dev/zero', join(folder, ids.zero));
    writeFileSync(join(dir, 'outside.bin'), Buffer.alloc(1024, 1));
    symlinkSync(join(dir, 'outside.bin'), join(folder, ids.out));
    const started = Date.now();
    // One after another: a principal's reads at once are capped (2 by default).
    const answers = [];
    for (const id of Object.values(ids))
      answers.push(await read(`artifact://${run.taskId}/${id}`, as('alice')));
    assert.deepEqual(answers.map(reasonOf), [
      'artifact_unreadable',
      'artifact_unreadable',
      'artifact_unreadable',
    ]);
    assert.ok(Date.now() - started < 5_000, 'no read waits on a FIFO');
    assert.equal((await fetch(new URL('/healthz', gateway.origin))).status, 200);
  });
});

describe('resources/list and OAuth scopes', () => {
  test("a token without a tool's scope does not list that tool's artifacts", async () => {
    const full = await authServer.token(AGENT, resource, 'mcp:tools report:read');
    const limited = await authServer.token(AGENT, resource, 'mcp:tools');
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const open = await call('write_report', { bytes: 100, seed: 1 }, bearer(full));
    const guarded = await call('guarded_report', { bytes: 100, seed: 2 }, bearer(full));
    const listed = async (token: string) => {
      const page = await rpcResult(gateway.url, 'resources/list', {}, INLINE, bearer(token));
      return (page.resources as { uri: string }[]).map((r) => r.uri);
    };
    const uris = (run: Completed) => run.artifacts.map((a) => a.uri);
    // Visibility catches up with the completed runs within a second or so.
    const both = [...uris(open), ...uris(guarded)];
    const everything = await eventually(
      async () => {
        const now = await listed(full);
        return both.every((uri) => now.includes(uri)) ? now : undefined;
      },
      20_000,
      'both runs to be listed',
    );
    assert.deepEqual(everything.sort(), both.sort(), 'the full token lists both');
    assert.deepEqual(await listed(limited), uris(open), 'the limited token lists the open tool only');
    const refused = await read(uris(guarded)[0] ?? '', bearer(limited));
    assert.equal(refused.httpStatus, 403, 'and cannot read it either');
  });
});

describe('30 concurrent reads of a 24 MiB artifact', () => {
  test('the gateway stays under 512 MB resident and answers /healthz; each read is served or refused as documented', async () => {
    const size = 24 * MIB;
    const run = await call('write_report', { bytes: size, seed: 5, name: 'big.bin' }, as('alice'));
    const uri = run.artifacts[0]?.uri ?? '';
    const pid = gateway.child.pid as number;
    const health: number[] = [];
    let reading = true;
    const probe = (async () => {
      while (reading) {
        const started = Date.now();
        const answer = await fetch(new URL('/healthz', gateway.origin), {
          signal: AbortSignal.timeout(5_000),
        });
        health.push(answer.status === 200 ? Date.now() - started : -1);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 30 }, () => read(uri, as('alice'))));
    reading = false;
    await probe;
    const peakMb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
    const reasons = answers.map(reasonOf);
    const served = answers.filter((a) => a.result);
    for (const answer of served) {
      const blob = ((answer.result?.contents ?? []) as { blob: string }[])[0]?.blob ?? '';
      assert.equal(Buffer.from(blob, 'base64').length, size);
    }
    const refused = answers.filter((a) => a.error);
    for (const answer of refused) {
      assert.equal(answer.error?.code, -32000);
      assert.equal(reasonOf(answer), 'artifact_reads_busy');
      assert.ok(
        (((answer.error?.data ?? {}) as { retryAfterMs?: number }).retryAfterMs ?? 0) > 0,
        'a retry hint',
      );
    }
    console.log(
      `30 reads of 24 MiB: ${served.length} served, ${refused.length} refused (${[...new Set(reasons)].join(', ')}); ` +
        `gateway peak resident ${peakMb.toFixed(0)} MB; /healthz ${health.length} answers, slowest ${Math.max(...health)} ms`,
    );
    assert.ok(served.length >= 1, 'some reads are served');
    assert.ok(peakMb < 512, `peak resident ${peakMb.toFixed(0)} MB`);
    assert.ok(health.length > 0 && health.every((ms) => ms >= 0), '/healthz answered 200 throughout');
  });
});

/**
 * Sends resources/read of `uri` and leaves once the first bytes of the answer have come: resolves
 * with those bytes' count after the connection is gone.
 */
function readAndLeave(
  uri: string,
  headers: Record<string, string>,
): Promise<{ status: number; got: number }> {
  const body = JSON.stringify(framedRequest('resources/read', { uri }, INLINE));
  return new Promise((resolve, reject) => {
    const req = httpRequest(gateway.url, {
      method: 'POST',
      headers: { ...framedHeaders('resources/read', { uri }), ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.once('data', (chunk: Buffer) => {
        res.destroy();
        req.destroy();
        resolve({ status: res.statusCode ?? 0, got: chunk.length });
      });
      res.once('end', () => reject(new Error('the whole answer came before the client could leave')));
    });
    req.end(body);
  });
}

describe('a client that leaves in the middle of an answer', () => {
  test('its read gives its share of the budget back: a later read by the same principal is served', async () => {
    const size = 16 * MIB;
    const run = await call('write_report', { bytes: size, seed: 9, name: 'left.bin' }, as('bob'));
    const uri = run.artifacts[0]?.uri ?? '';
    // As many reads left mid-answer as a principal may have at once (2 by default): had any kept its
    // share, the principal would be refused artifact_reads_busy from then on.
    for (let i = 0; i < 2; i++) {
      const left = await readAndLeave(uri, as('bob'));
      assert.equal(left.status, 200);
      assert.ok(left.got > 0 && left.got < size, `left after ${left.got} bytes of the answer`);
    }
    const later = await eventually(
      async () => {
        const answer = await read(uri, as('bob'));
        return reasonOf(answer) === 'artifact_reads_busy' ? undefined : answer;
      },
      5_000,
      'a read by the same principal to be served',
      100,
    );
    assert.equal(reasonOf(later), 'served');
    const blob = ((later.result?.contents ?? []) as { blob: string }[])[0]?.blob ?? '';
    assert.equal(Buffer.from(blob, 'base64').length, size);
  });
});
