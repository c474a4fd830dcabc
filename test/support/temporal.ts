// A real Temporal dev server for one test file, on a free port with a throwaway database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { pollUntil } from '../../common/poll.ts';
import { DevServer } from '../../launcher/dev-server.ts';

export interface TestTemporal {
  server: DevServer;
  client: Client;
  dataDir: string;
  close(): Promise<void>;
}

/** `searchAttributes`: the ones to register, when not every one the gateway uses. */
export async function startTestTemporal(searchAttributes?: Record<string, string>): Promise<TestTemporal> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-gw-test-'));
  const server = await DevServer.start({
    dbFilename: join(dataDir, 'temporal.db'),
    ...(searchAttributes ? { searchAttributes } : {}),
  });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: 'default' });
  return {
    server,
    client,
    dataDir,
    async close() {
      await connection.close().catch(() => {});
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  intervalMs = 100,
): Promise<T> {
  return pollUntil(probe, {
    timeoutMs,
    intervalMs,
    timeoutError: (lastError) =>
      new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError}` : ''}`),
  });
}
