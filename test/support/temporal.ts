// Temporal for one test file. Under scripts/run-tests.ts (`npm test`) one dev server serves the
// whole run (TEST_TEMPORAL_ADDRESS) and each file gets a namespace of its own on it, with every
// search attribute the gateway writes; a file that stops or restarts Temporal, wants other search
// attributes or a server of its own gets a dev server of its own on a free port with a throwaway
// database. Everything a file starts (gateways, workers, clients) goes to `address` and `namespace`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { pollUntil, retryUntil } from '../../common/poll.ts';
import { DevServer, SEARCH_ATTRIBUTES } from '../../launcher/dev-server.ts';

export interface TestTemporal {
  /** host:port of the frontend. */
  address: string;
  /** The file's namespace: its own on the shared server, else "default". */
  namespace: string;
  /** TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, for the environment of a process the file starts. */
  env: { TEMPORAL_ADDRESS: string; TEMPORAL_NAMESPACE: string };
  client: Client;
  close(): Promise<void>;
}

/** A dev server of the file's own (namespace "default"). */
export interface OwnTestTemporal extends TestTemporal {
  server: DevServer;
  dataDir: string;
}

/** Indexed value types of the operator service, by the names the dev server's flag takes. */
const INDEXED_VALUE_TYPES = { Keyword: 2 } as const;
let namespaces = 0;

/** A namespace of the file's own on the shared server under `npm test`, else a server of its own. */
export async function startTestTemporal(): Promise<TestTemporal> {
  const shared = process.env.TEST_TEMPORAL_ADDRESS;
  return shared ? namespaceOnShared(shared) : startOwnTestTemporal();
}

/**
 * A dev server of the file's own, for a file that stops or restarts Temporal or wants other search
 * attributes. `searchAttributes`: the ones to register, when not every one the gateway uses.
 */
export async function startOwnTestTemporal(
  searchAttributes?: Record<string, string>,
): Promise<OwnTestTemporal> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-gw-test-'));
  const server = await DevServer.start({
    dbFilename: join(dataDir, 'temporal.db'),
    ...(searchAttributes ? { searchAttributes } : {}),
  });
  const connection = await Connection.connect({ address: server.address });
  return {
    ...target(server.address, 'default'),
    server,
    dataDir,
    client: new Client({ connection, namespace: 'default' }),
    async close() {
      await connection.close().catch(() => {});
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function target(address: string, namespace: string) {
  return { address, namespace, env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace } };
}

/** A namespace of the file's own on the shared server, with the gateway's search attributes, once usable. */
async function namespaceOnShared(address: string): Promise<TestTemporal> {
  const namespace = `test-${process.pid}-${++namespaces}`;
  const connection = await Connection.connect({ address });
  // protobufjs takes a number where its types say Long.
  const retention = { seconds: 86_400 } as never;
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: retention,
  });
  const searchAttributes = Object.fromEntries(
    Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, INDEXED_VALUE_TYPES[type]]),
  );
  await retryUntil(() => connection.operatorService.addSearchAttributes({ namespace, searchAttributes }), {
    timeoutMs: 30_000,
    maxIntervalMs: 500,
  });
  await retryUntil(
    async () => {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      for (const name of Object.keys(SEARCH_ATTRIBUTES))
        if (!customAttributes?.[name]) throw new Error(`search attribute ${name} not registered yet`);
    },
    { timeoutMs: 30_000, maxIntervalMs: 500 },
  );
  return {
    ...target(address, namespace),
    client: new Client({ connection, namespace }),
    async close() {
      // The namespace stays until the shared server stops with the run.
      await connection.close().catch(() => {});
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
