// The cluster's own processes beside Temporal: the workers, the gateways (compiled, as the image
// runs them) and the Web UI, and the bundles they run, built while the database comes up.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GATEWAY_NODE_FLAGS } from '../../gateway/runtime-flags.ts';
import type { ClusterProcessSpec } from './cluster-process.ts';
import type { ClusterPorts } from './ports.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Inside the repository, so the bundle's imports resolve from its node_modules.
const GATEWAY_BUNDLE = join(ROOT, 'node_modules', '.cache', 'cluster-gateway.mjs');

/** What every app process is started with. */
export interface AppContext {
  dataDir: string;
  ports: ClusterPorts;
  /** TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE over the launcher's environment. */
  env: NodeJS.ProcessEnv;
  workflowBundle: string;
}

/** The workflow bundle and the compiled gateway, built side by side; resolves once both are. */
export function buildBundles(workflowBundle: string): Promise<unknown> {
  const bundles = Promise.all([
    run(process.execPath, ['--import', 'tsx', 'scripts/build-workflow-bundle.ts', workflowBundle], {
      cwd: ROOT,
    }),
    import('../../scripts/build-gateway.ts').then(({ buildGateway }) => {
      mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
      return buildGateway(GATEWAY_BUNDLE);
    }),
  ]);
  bundles.catch(() => {});
  return bundles;
}

async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await response.body?.cancel();
  return response.ok;
}

function nodeSpec(
  spec: Pick<ClusterProcessSpec, 'name' | 'args' | 'env' | 'ready' | 'stopGraceMs'>,
): ClusterProcessSpec {
  return { ...spec, command: process.execPath, cwd: ROOT, readyTimeoutMs: 90_000 };
}

export function workerSpec(
  index: number,
  app: AppContext,
  extraEnv?: Record<string, string>,
): ClusterProcessSpec {
  return nodeSpec({
    name: `worker-${index + 1}`,
    args: ['--import', 'tsx', 'worker/main.ts'],
    env: {
      ...app.env,
      WORKFLOW_BUNDLE_PATH: app.workflowBundle,
      MCP_DATA_DIR: join(app.dataDir, 'worker-data'),
      ...extraEnv,
    },
    ready: async (output) => output().includes('worker: polling task queue'),
    stopGraceMs: 20_000,
  });
}

/** The secret every gateway shares (idempotent task ids must agree), made once. */
function serverSecretFile(dataDir: string): string {
  const path = join(dataDir, 'server-secret');
  if (!existsSync(path)) writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return path;
}

/**
 * MCP_CODEC_SERVER=true (with MCP_CODEC_KEYS): the UI decodes payloads through the gateways' codec
 * server, behind the proxy; the UI's own origin is the one the gateways allow.
 */
function codecServed(): boolean {
  return process.env.MCP_CODEC_SERVER?.trim() === 'true';
}

function codecEnv(ports: ClusterPorts): NodeJS.ProcessEnv {
  return codecServed() && !process.env.MCP_CODEC_CORS_ORIGINS?.trim()
    ? { MCP_CODEC_CORS_ORIGINS: `http://127.0.0.1:${ports.ui},http://localhost:${ports.ui}` }
    : {};
}

export function gatewaySpec(
  index: number,
  app: AppContext,
  extraEnv?: Record<string, string>,
): ClusterProcessSpec {
  const port = app.ports.gateways[index] as number;
  return nodeSpec({
    name: `gateway-${index + 1}`,
    args: [...GATEWAY_NODE_FLAGS, GATEWAY_BUNDLE],
    env: {
      ...app.env,
      MCP_HOST: '127.0.0.1',
      MCP_PORT: String(port),
      MCP_SERVER_SECRET_FILE: serverSecretFile(app.dataDir),
      MCP_DATA_DIR: join(app.dataDir, 'gateway-data'),
      LOG_FORMAT: 'json',
      ...codecEnv(app.ports),
      ...extraEnv,
    },
    ready: () => httpOk(`http://127.0.0.1:${port}/readyz`),
    stopGraceMs: 15_000,
  });
}

/** The Web UI server on the frontend, decoding through the gateways' codec server when served. */
export function uiSpec(binary: string, ports: ClusterPorts, temporalAddress: string): ClusterProcessSpec {
  return {
    name: 'ui',
    command: binary,
    args: [
      '--port',
      String(ports.ui),
      '--temporal-address',
      temporalAddress,
      ...(codecServed() ? ['--codec-endpoint', `http://127.0.0.1:${ports.proxy}/codec`] : []),
    ],
    ready: () => httpOk(`http://127.0.0.1:${ports.ui}/`),
    readyTimeoutMs: 30_000,
    stopGraceMs: 5_000,
  };
}
