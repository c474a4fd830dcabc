// Worker settings from the environment, apart from the process entry so they can be tested.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WorkerOptions } from '@temporalio/worker';
import { minerNice } from '../activities/pow/miner-priority.ts';
import type { ArtifactStoreSettings } from '../common/artifact-store.ts';
import { artifactStoreSettings } from '../common/artifact-store-settings.ts';
import { codecFromEnv } from '../common/codec-settings.ts';
import type { EncryptionCodec } from '../common/payload-codec.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** The workflow interceptors that trace runs started while tracing (bundled with the workflows). */
export const TRACING_INTERCEPTORS_PATH = fileURLToPath(
  new URL('../workflows/tracing-interceptors.ts', import.meta.url),
);
/** The package's `temporal-mcp-gateway/workflow` in this repository: its sources (package.json exports). */
const WORKFLOW_PACKAGE_PATH = fileURLToPath(new URL('../workflows/package.ts', import.meta.url));
/**
 * The bundler options of a worker in this repository: its workflows import the package's workflow
 * side by name, as a project that installed the package does, and the alias points that name at the
 * sources (webpack reads no `source` condition; a project of its own needs no alias).
 */
export const WORKFLOW_PACKAGE_BUNDLER: NonNullable<WorkerOptions['bundlerOptions']> = {
  webpackConfigHook: (config) => ({
    ...config,
    resolve: {
      ...config.resolve,
      alias: { ...config.resolve?.alias, 'temporal-mcp-gateway/workflow$': WORKFLOW_PACKAGE_PATH },
    },
  }),
};
export const DEFAULT_BUNDLE_PATH = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));

export interface WorkerSettings {
  /** Prebuilt workflow bundle (WORKFLOW_BUNDLE_PATH): starts in a second instead of bundling. */
  workflowBundlePath?: string;
  maxConcurrentActivities: number;
  connectTimeoutMs: number;
  /** Payload encryption (MCP_CODEC_KEYS, MCP_CODEC_KEY_ID), the gateway's keys; absent: off. */
  codec?: EncryptionCodec;
  /**
   * Where activities store large outputs (MCP_ARTIFACT_STORE and its settings): read here so a bad
   * value stops the start; activities/artifacts.ts opens the store when an activity first uses it.
   */
  artifactStore: ArtifactStoreSettings;
  /** The nice value of the miner's threads (MINER_NICE): read here so a bad value stops the start. */
  minerNice: number;
}

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Where the worker takes its workflow code: the prebuilt bundle when there is one, else the sources. */
export function workflowSource(settings: Pick<WorkerSettings, 'workflowBundlePath'>):
  | { workflowBundle: { codePath: string } }
  | {
      workflowsPath: string;
      interceptors: { workflowModules: string[] };
      bundlerOptions: typeof WORKFLOW_PACKAGE_BUNDLER;
    } {
  // A prebuilt bundle has the interceptors in it (scripts/build-workflow-bundle.ts).
  return settings.workflowBundlePath
    ? { workflowBundle: { codePath: settings.workflowBundlePath } }
    : {
        workflowsPath: WORKFLOWS_PATH,
        interceptors: { workflowModules: [TRACING_INTERCEPTORS_PATH] },
        bundlerOptions: WORKFLOW_PACKAGE_BUNDLER,
      };
}

export function workerSettings(env: NodeJS.ProcessEnv = process.env): WorkerSettings {
  const bundle =
    env.WORKFLOW_BUNDLE_PATH || (existsSync(DEFAULT_BUNDLE_PATH) ? DEFAULT_BUNDLE_PATH : undefined);
  if (bundle && !existsSync(bundle)) throw new Error(`WORKFLOW_BUNDLE_PATH ${bundle} does not exist`);
  const codec = codecFromEnv(env);
  return {
    workflowBundlePath: bundle,
    maxConcurrentActivities: positiveInt(
      'WORKER_MAX_CONCURRENT_ACTIVITIES',
      env.WORKER_MAX_CONCURRENT_ACTIVITIES,
      8,
    ),
    connectTimeoutMs: positiveInt('TEMPORAL_CONNECT_TIMEOUT_MS', env.TEMPORAL_CONNECT_TIMEOUT_MS, 30_000),
    ...(codec ? { codec } : {}),
    artifactStore: artifactStoreSettings(env),
    minerNice: minerNice(env),
  };
}
