// The pure parts of artifacts: which values of a result are references, the URIs and what they
// may name, the answer a completed run with references gets, and the store settings' refusals.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { rename, rm, symlink } from 'node:fs/promises';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { artifactStoreSettings, openArtifactStore } from '../common/artifact-store-settings.ts';
import { LocalArtifactStore } from '../common/local-artifact-store.ts';
import {
  artifactReferences,
  artifactUri,
  isArtifactReference,
  isExpired,
  parseArtifactUri,
} from '../gateway/mcp/artifacts.ts';
import { genericPresentation } from '../gateway/mcp/presentation.ts';
import { startPollJson, toolResult } from '../gateway/mcp/start-poll.ts';
import type { ArtifactReference } from '../workflows/mcp-contract.ts';

const REF: ArtifactReference = {
  type: 'mcp_artifact',
  id: 'abcdefghijklmnop0123_-XY',
  name: 'report.csv',
  contentType: 'text/csv',
  size: 12,
  sha256: 'a'.repeat(64),
  expiresAt: '2030-01-01T00:00:00.000Z',
};

describe('artifact references in a result', () => {
  test('the result itself, a top-level field, or an element of a top-level array', () => {
    const other = { ...REF, id: 'qrstuvwxyz0123456789' };
    assert.deepEqual(artifactReferences(REF), [REF]);
    assert.deepEqual(artifactReferences({ summary: 'x', report: REF }), [REF]);
    assert.deepEqual(artifactReferences({ files: [REF, other, 3] }), [REF, other]);
    assert.deepEqual(artifactReferences([REF]), [REF]);
    assert.deepEqual(artifactReferences({ deep: { report: REF } }), [], 'deeper objects are plain data');
    assert.deepEqual(artifactReferences('text'), []);
    assert.deepEqual(artifactReferences(null), []);
  });

  test('an object breaking a rule of the shape is plain data', () => {
    for (const broken of [
      { ...REF, type: 'artifact' },
      { ...REF, id: '../../etc/passwd' },
      { ...REF, id: 'short' },
      { ...REF, sha256: 'nothex' },
      { ...REF, size: -1 },
      { ...REF, size: 1.5 },
      { ...REF, expiresAt: 'tomorrow' },
      { ...REF, name: undefined },
    ]) {
      assert.equal(isArtifactReference(broken), false, JSON.stringify(broken));
    }
  });

  test("expiry is the reference's own time", () => {
    assert.equal(isExpired(REF, Date.parse('2029-12-31T23:59:59Z')), false);
    assert.equal(isExpired(REF, Date.parse('2030-01-01T00:00:00Z')), true);
  });
});

describe('artifact URIs', () => {
  test('round trip, bound to the task', () => {
    const uri = artifactUri('write_report-AAAA', REF.id);
    assert.equal(uri, `artifact://write_report-AAAA/${REF.id}`);
    assert.deepEqual(parseArtifactUri(uri), { taskId: 'write_report-AAAA', artifactId: REF.id });
  });

  test('anything else names nothing', () => {
    for (const uri of [
      'file:///etc/passwd',
      'artifact://task',
      `artifact://task/${REF.id}/more`,
      'artifact://task/../../x',
      'artifact://task/short',
      `artifact:///${REF.id}`,
      `ARTIFACT://task/${REF.id}`,
    ]) {
      assert.equal(parseArtifactUri(uri), undefined, uri);
    }
  });
});

describe('the answer of a completed run with an artifact', () => {
  const tool = {
    name: 'write_report',
    companions: { result: 'get_write_report_result', cancel: 'cancel_write_report' },
    presentation: genericPresentation,
  };

  test('a resource_link per artifact, and where to read each in structuredContent', () => {
    const json = startPollJson(
      { taskId: 'write_report-T', state: { status: 'completed', result: { summary: 's', report: REF } } },
      tool,
      1000,
    );
    const answer = toolResult(json, tool);
    const [text, link] = answer.content as Record<string, unknown>[];
    assert.equal(text?.type, 'text');
    assert.deepEqual(
      { ...link, description: undefined },
      {
        type: 'resource_link',
        uri: `artifact://write_report-T/${REF.id}`,
        name: 'report.csv',
        mimeType: 'text/csv',
        size: 12,
        description: undefined,
      },
    );
    const structured = answer.structuredContent as { artifacts: unknown[]; result: unknown };
    assert.deepEqual(structured.result, { summary: 's', report: REF });
    assert.deepEqual(structured.artifacts, [
      {
        uri: `artifact://write_report-T/${REF.id}`,
        name: 'report.csv',
        mimeType: 'text/csv',
        size: 12,
        sha256: REF.sha256,
        expiresAt: REF.expiresAt,
      },
    ]);
    assert.deepEqual(JSON.parse(String(text?.text)), structured);
    assert.equal(answer.isError, undefined);
  });

  test('a result without references answers as before: no resource_link', () => {
    const json = startPollJson(
      { taskId: 'w-T', state: { status: 'completed', result: { n: 1 } } },
      tool,
      1000,
    );
    const answer = toolResult(json, tool);
    assert.equal(answer.content.length, 1);
    assert.equal((answer.structuredContent as { artifacts?: unknown }).artifacts, undefined);
  });
});

describe('artifact store settings', () => {
  test('local by default; s3 needs a bucket; bad values are named', () => {
    assert.equal(artifactStoreSettings({}).kind, 'local');
    assert.throws(() => artifactStoreSettings({ MCP_ARTIFACT_STORE: 'ftp' }), /MCP_ARTIFACT_STORE must be/);
    assert.throws(() => artifactStoreSettings({ MCP_ARTIFACT_STORE: 's3' }), /needs MCP_ARTIFACT_S3_BUCKET/);
    assert.throws(
      () =>
        artifactStoreSettings({
          MCP_ARTIFACT_STORE: 's3',
          MCP_ARTIFACT_S3_BUCKET: 'b',
          MCP_ARTIFACT_S3_ENDPOINT: 'x',
        }),
      /MCP_ARTIFACT_S3_ENDPOINT must be an http\(s\) URL/,
    );
    assert.throws(
      () =>
        artifactStoreSettings({
          MCP_ARTIFACT_STORE: 's3',
          MCP_ARTIFACT_S3_BUCKET: 'b',
          MCP_ARTIFACT_S3_FORCE_PATH_STYLE: 'yes',
        }),
      /MCP_ARTIFACT_S3_FORCE_PATH_STYLE must be true or false/,
    );
    const s3 = artifactStoreSettings({
      MCP_ARTIFACT_STORE: 's3',
      MCP_ARTIFACT_S3_BUCKET: 'b',
      MCP_ARTIFACT_S3_ENDPOINT: 'http://127.0.0.1:9000',
    });
    assert.equal(s3.kind === 's3' && s3.forcePathStyle, true, 'path style with an endpoint');
  });

  test('the local store writes whole files only, under their run, hashes what it writes, and refuses ids that are paths', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'test-artifact-units-'));
    try {
      const store = new LocalArtifactStore(dir);
      const key = { run: 'mine-AAAA', id: REF.id };
      const stored = await store.put(key, Readable.from([Buffer.from('hello '), Buffer.from('world')]));
      assert.deepEqual(stored, {
        size: 11,
        sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      });
      assert.deepEqual(readdirSync(join(dir, 'mine-AAAA')), [REF.id], 'no partial file left behind');
      assert.equal((await store.get(key, 1024))?.toString(), 'hello world');
      await assert.rejects(store.get(key, 5), /larger than 5 bytes/);
      assert.equal(
        await store.get({ run: 'mine-BBBB', id: REF.id }, 1024),
        undefined,
        'another run names nothing',
      );
      assert.equal(await store.get({ run: 'mine-AAAA', id: 'qrstuvwxyz0123456789' }, 1024), undefined);
      await assert.rejects(
        store.put({ run: 'mine-AAAA', id: '../escape-attempt-000' }, 'x'),
        /not an artifact id/,
      );
      for (const run of ['..', '.', '../x', 'a/b', ''])
        await assert.rejects(store.get({ run, id: REF.id }, 1024), /not a run id/, run);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the local store serves regular files of its own only: no link, FIFO or device, no more than it checked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'test-artifact-units-'));
    try {
      const store = new LocalArtifactStore(dir);
      const run = 'mine-CCCC';
      mkdirSync(join(dir, run));
      writeFileSync(join(dir, 'outside'), 'secret bytes');
      symlinkSync(join(dir, 'outside'), join(dir, run, 'linkedlinkedlinked01'));
      symlinkSync('/dev/zero', join(dir, run, 'devzerodevzerodevz01'));
      execFileSync('mkfifo', [join(dir, run, 'fifofifofifofifofi01')]);
      await assert.rejects(store.get({ run, id: 'linkedlinkedlinked01' }, 1024), /symbolic link/);
      await assert.rejects(store.get({ run, id: 'devzerodevzerodevz01' }, 1024), /symbolic link/);
      // A FIFO with no writer: refused at once, not a read that waits for ever.
      await assert.rejects(store.get({ run, id: 'fifofifofifofifofi01' }, 1024), /not a regular file/);
      symlinkSync(join(dir, run), join(dir, 'mine-DDDD'));
      writeFileSync(join(dir, run, 'plainplainplainpl01'), 'plain');
      await assert.rejects(
        store.get({ run: 'mine-DDDD', id: 'plainplainplainpl01' }, 1024),
        /not a directory/,
      );
      assert.equal((await store.get({ run, id: 'plainplainplainpl01' }, 1024))?.toString(), 'plain');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a run folder swapped for a link while reads go on is never followed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'test-artifact-units-'));
    try {
      const store = new LocalArtifactStore(dir);
      const run = 'mine-EEEE';
      const id = 'swappedswappedswap01';
      mkdirSync(join(dir, run));
      writeFileSync(join(dir, run, id), 'inside');
      mkdirSync(join(dir, 'elsewhere'));
      writeFileSync(join(dir, 'elsewhere', id), 'outside');
      // The run's folder and a link to elsewhere trade places again and again while the reads run.
      let swapping = true;
      const swaps = (async () => {
        let swapped = 0;
        while (swapping) {
          await rename(join(dir, run), join(dir, 'real'));
          await symlink(join(dir, 'elsewhere'), join(dir, run));
          await rm(join(dir, run));
          await rename(join(dir, 'real'), join(dir, run));
          swapped++;
        }
        return swapped;
      })();
      const seen = new Map<string, number>();
      for (let i = 0; i < 3_000; i++) {
        const got = await store.get({ run, id }, 1024).then(
          (bytes) => bytes?.toString() ?? 'absent',
          (err: Error) => err.message,
        );
        seen.set(got, (seen.get(got) ?? 0) + 1);
      }
      swapping = false;
      assert.ok((await swaps) > 100, 'the folder was swapped while reading');
      assert.equal(
        seen.get('outside'),
        undefined,
        `never the bytes behind the link: ${JSON.stringify([...seen])}`,
      );
      assert.ok((seen.get('inside') ?? 0) > 0, `the run's own bytes were read: ${JSON.stringify([...seen])}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an S3 server that accepts and never answers costs a read its deadline, not a socket for ever', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const settings = artifactStoreSettings({
      MCP_ARTIFACT_STORE: 's3',
      MCP_ARTIFACT_S3_BUCKET: 'b',
      MCP_ARTIFACT_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      MCP_ARTIFACT_S3_TIMEOUT_MS: '1000',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
    });
    const store = await openArtifactStore(settings);
    const started = Date.now();
    try {
      await assert.rejects(store.get({ run: 'mine-EEEE', id: REF.id }, 1024));
      const took = Date.now() - started;
      assert.ok(
        took >= 900 && took < 10_000,
        `gave up after ${took} ms (deadline 1000 ms, retries included)`,
      );
      assert.ok(sockets.length >= 1, 'it did reach the silent server');
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
