// A real S3-compatible server for a test file: the Versity S3 Gateway (versitygw, posix backend: a
// bucket is a folder) on a free loopback port, with a bucket made through the S3 API itself. The
// binary comes from VERSITYGW_PATH (.ci/run sets it) or scripts/install-versitygw.sh.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../launcher/free-port.ts';
import { spawnTestProcess } from './child-process.ts';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The settings a gateway or a worker needs to use the bucket (credentials included). */
  env: Record<string, string>;
  close(): Promise<void>;
}

const ACCESS_KEY = 'test-artifacts-access';
const SECRET_KEY = 'test-artifacts-secret-0123456789';

function versitygwPath(): string {
  if (process.env.VERSITYGW_PATH) return process.env.VERSITYGW_PATH;
  const out = execFileSync('bash', ['scripts/install-versitygw.sh'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.toString().trim().split('\n').at(-1) as string;
}

export async function startTestS3(bucket = 'artifacts'): Promise<TestS3> {
  const root = mkdtempSync(join(tmpdir(), 'test-s3-'));
  const port = await freePort();
  const server = spawnTestProcess({
    name: 'versitygw',
    command: versitygwPath(),
    args: ['--port', `127.0.0.1:${port}`, '--access', ACCESS_KEY, '--secret', SECRET_KEY, 'posix', root],
    readyText: 'listening on',
    readyTimeoutMs: 20_000,
  });
  await server.ready;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    endpoint,
    bucket,
    env: {
      MCP_ARTIFACT_STORE: 's3',
      MCP_ARTIFACT_S3_BUCKET: bucket,
      MCP_ARTIFACT_S3_ENDPOINT: endpoint,
      MCP_ARTIFACT_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
    },
    async close() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
