// The whole product for one test file: a real dev server, a real worker process (its ledger in a
// throwaway data folder) and the gateway on a free port, all on one task queue of the file's own,
// in the file's namespace (test/support/temporal.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewayOptions, startGateway, type TestGateway } from './gateway-server.ts';
import { startTestTemporal, type TestTemporal } from './temporal.ts';
import { startWorker, type WorkerProcess } from './worker-process.ts';

export interface TestStack {
  temporal: TestTemporal;
  worker: WorkerProcess;
  gateway: TestGateway;
  taskQueue: string;
  dataDir: string;
  /** Another gateway on the same Temporal and queue, with other settings; closed with the stack. */
  extraGateway(
    options?: Omit<GatewayOptions, 'temporalAddress' | 'temporalNamespace' | 'taskQueue'>,
  ): Promise<TestGateway>;
  close(): Promise<void>;
}

export async function startTestStack(
  name: string,
  gatewayOptions: Omit<GatewayOptions, 'temporalAddress' | 'temporalNamespace' | 'taskQueue'> = {},
): Promise<TestStack> {
  const taskQueue = `${name}-${process.pid}`;
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const temporal = await startTestTemporal();
  const worker = startWorker({
    ...temporal.env,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MCP_DATA_DIR: dataDir,
  });
  const gateways: TestGateway[] = [];
  const extraGateway = async (
    options: Omit<GatewayOptions, 'temporalAddress' | 'temporalNamespace' | 'taskQueue'> = {},
  ) => {
    const gateway = await startGateway({
      ...options,
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      taskQueue,
    });
    gateways.push(gateway);
    return gateway;
  };
  const stack: TestStack = {
    temporal,
    worker,
    gateway: await extraGateway(gatewayOptions),
    taskQueue,
    dataDir,
    extraGateway,
    async close() {
      await Promise.all(gateways.map((g) => g.close().catch(() => {})));
      await worker.stop().catch(() => {});
      await temporal.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await worker.ready;
  } catch (err) {
    await stack.close();
    throw err;
  }
  return stack;
}
