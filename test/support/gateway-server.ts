// The gateway for a test file: the real app (buildApp) with a real Temporal client, listening on a
// free loopback port. Settings default to values that keep tests fast.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../gateway/app.ts';
import { backendOptions, type GatewaySettings, loadSettings } from '../../gateway/settings/index.ts';
import { TemporalBackend } from '../../gateway/temporal/backend.ts';
import { createTemporalClient } from '../../gateway/temporal/client.ts';
import { taskRun } from '../../gateway/temporal/task-ids.ts';

export interface GatewayOptions {
  temporalAddress: string;
  /** The test file's namespace (TestTemporal.namespace); "default" when absent. */
  temporalNamespace?: string;
  taskQueue: string;
  waitBudgetMs?: number;
  pollIntervalMs?: number;
  queryTimeoutMs?: number;
  temporalTimeoutMs?: number;
  readyTimeoutMs?: number;
  /** Any other gateway setting, as environment variables. */
  env?: Record<string, string>;
  /** Listen on this port (a restarted gateway keeps its address); a free one by default. */
  port?: number;
}

/** The server secret of test gateways (MCP_SERVER_SECRET in `env` overrides it). */
export const TEST_SERVER_SECRET = 'test-server-secret-0123456789abcdef0123456789';

/** The running-task cap a gateway has with MCP_MAX_RUNNING_TASKS unset, as configuration.md states it (test gateways have none). */
export const DEFAULT_CAP = { MCP_MAX_RUNNING_TASKS: '100' };

/**
 * A task's run handle as a test gateway started it: under the running-task cap its slot's workflow
 * and the run its id names, else the task id's.
 */
export function taskHandle(client: Client, principal: string, taskId: string) {
  const { workflowId, runId } = taskRun(Buffer.from(TEST_SERVER_SECRET), principal, taskId);
  return client.workflow.getHandle(workflowId, runId);
}

export interface TestGateway {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The MCP endpoint: origin + /mcp */
  url: URL;
  config: GatewaySettings;
  app: FastifyInstance;
  /** The gateway's own Temporal client (shares nothing with the test's). */
  temporal: Client;
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<TestGateway> {
  const interval = options.env?.MCP_POLL_INTERVAL_MS ?? String(options.pollIntervalMs ?? 250);
  const config = await loadSettings({
    TEMPORAL_ADDRESS: options.temporalAddress,
    ...(options.temporalNamespace ? { TEMPORAL_NAMESPACE: options.temporalNamespace } : {}),
    TEMPORAL_TASK_QUEUE: options.taskQueue,
    MCP_HOST: '127.0.0.1',
    MCP_PORT: '0',
    MCP_WAIT_BUDGET_MS: String(options.waitBudgetMs ?? 1_500),
    MCP_POLL_INTERVAL_MS: interval,
    // Clients that follow the advice answer input and poll on: a long input interval would only
    // slow them (adaptive-polling.test.ts sets its own).
    MCP_POLL_INPUT_INTERVAL_MS: interval,
    MCP_QUERY_TIMEOUT_MS: String(options.queryTimeoutMs ?? 1_000),
    MCP_TEMPORAL_TIMEOUT_MS: String(options.temporalTimeoutMs ?? 3_000),
    MCP_READY_TIMEOUT_MS: String(options.readyTimeoutMs ?? 1_000),
    // No running-task cap unless a test sets one: under the cap a task's workflow id is its slot's,
    // and most tests look at a task's run by its id. The cap's own tests set it (taskHandle).
    MCP_MAX_RUNNING_TASKS: '0',
    // Nor a bound on starts per second (a test's bursts are not a tenant's): its tests set one.
    MCP_MAX_STARTS_PER_SECOND: '0',
    // Each test gateway its own fleet, as gateways set up differently on one queue would be; the
    // fleet's own test (principal-limits.test.ts) runs gateway processes with none set.
    MCP_FLEET: `test-gateway-${randomUUID()}`,
    ...options.env,
  });
  const temporal = await createTemporalClient(config.temporal, config.temporalTimeoutMs, config.codec);
  const secret = Buffer.from(options.env?.MCP_SERVER_SECRET ?? TEST_SERVER_SECRET);
  const backend = new TemporalBackend(temporal, backendOptions(config, secret));
  const app = buildApp(config, { backend });
  const origin = await app.listen({ host: config.host, port: options.port ?? 0 });
  return {
    origin,
    url: new URL('/mcp', origin),
    config,
    app,
    temporal,
    async close() {
      await app.close();
      // A connection attempt still pending (Temporal down) must settle first: closing under it
      // throws "Channel has been shut down" from inside the client.
      await temporal.connection.ensureConnected().catch(() => {});
      await temporal.connection.close();
    },
  };
}
