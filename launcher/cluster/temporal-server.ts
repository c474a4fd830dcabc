// The Temporal server v1.32.2 as a real cluster: its four services (frontend, history, matching,
// internal worker) as separate processes of the server binary, on PostgreSQL for persistence and
// visibility. The binaries come from `go install` (scripts/install-temporal-server.sh, into the
// folder SERVER_BIN_FOLDER of the Go bin folder): `server` (go.temporal.io/server/cmd/server) and
// `sql` (the server's SQL schema tool, go.temporal.io/server/cmd/tools/sql).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ClusterProcessSpec } from './cluster-process.ts';
import { databaseExists, TEMPORAL_DB_PASSWORD, TEMPORAL_DB_USER } from './postgres.ts';

const run = promisify(execFile);

export const TEMPORAL_SERVER_VERSION = '1.32.2';
/** The server's own folder under the Go bin folder: builds of another release stay beside it. */
const SERVER_BIN_FOLDER = `temporal-server-v${TEMPORAL_SERVER_VERSION}`;
export const TEMPORAL_SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];

export const TEMPORAL_DB = 'temporal';
export const VISIBILITY_DB = 'temporal_visibility';
/** The schema tool's embedded schemas for PostgreSQL 12 and later. */
export const SCHEMAS = {
  [TEMPORAL_DB]: 'postgresql/v12/temporal',
  [VISIBILITY_DB]: 'postgresql/v12/visibility',
};

export interface TemporalPorts {
  /** gRPC port of each service (the frontend's is the one clients use). */
  grpc: Record<TemporalService, number>;
  /** Ringpop membership port of each service. */
  membership: Record<TemporalService, number>;
  /** The frontend's HTTP API (Nexus callbacks, the HTTP API). */
  frontendHttp: number;
}

export interface TemporalBinaries {
  server: string;
  sql: string;
}

/** The Go bin folders `go install` may have written to. */
export function goBinFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const folders: string[] = [];
  if (env.GOBIN) folders.push(env.GOBIN);
  if (env.GOPATH) folders.push(join(env.GOPATH.split(delimiter)[0] as string, 'bin'));
  folders.push(join(env.HOME || homedir(), 'go', 'bin'));
  return [...new Set(folders)];
}

/** Is `path` a Go binary built from go.temporal.io/server at the pinned version? */
async function isPinnedServerBuild(path: string): Promise<boolean> {
  try {
    const { stdout } = await run('go', ['version', '-m', path], { timeout: 10_000 });
    return new RegExp(
      `^\\s*mod\\s+go\\.temporal\\.io/server\\s+v${TEMPORAL_SERVER_VERSION.replaceAll('.', '\\.')}\\s`,
      'm',
    ).test(stdout);
  } catch {
    return false;
  }
}

/** The server and the SQL tool (TEMPORAL_SERVER_PATH / TEMPORAL_SQL_TOOL_PATH, else the release's folder under the Go bin folder). */
async function findTemporalBinaries(
  env: NodeJS.ProcessEnv = process.env,
): Promise<TemporalBinaries | undefined> {
  const pick = async (override: string | undefined, name: string) => {
    if (override) return existsSync(override) ? override : undefined;
    for (const dir of goBinFolders(env)) {
      const path = join(dir, SERVER_BIN_FOLDER, name);
      if (existsSync(path) && (await isPinnedServerBuild(path))) return path;
    }
    return undefined;
  };
  const server = await pick(env.TEMPORAL_SERVER_PATH, 'server');
  const sql = await pick(env.TEMPORAL_SQL_TOOL_PATH, 'sql');
  return server && sql ? { server, sql } : undefined;
}

/** The services' dynamic config, shared with the compose profile `cluster`. */
/** The config folder's name under the services' `--root`, and the `--env` that names its file. */
export const CONFIG_DIR_NAME = 'config';
export const CONFIG_ENV_NAME = 'cluster';

export const DYNAMIC_CONFIG = fileURLToPath(new URL('./dynamicconfig.yaml', import.meta.url));

const INSTALL_SCRIPT = fileURLToPath(new URL('../../scripts/install-temporal-server.sh', import.meta.url));

/**
 * The binaries, built first by the install script when they are missing (or when the Web UI server
 * is wanted and missing): its messages go to `say` line by line.
 */
export async function ensureTemporalBinaries(
  say: (line: string) => void,
  wantUi: (() => boolean) | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TemporalBinaries> {
  const found = await findTemporalBinaries(env);
  if (found && !(wantUi && !wantUi())) return found;
  const child = spawn('bash', [INSTALL_SCRIPT], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-2_000);
      for (const line of chunk.toString().split('\n')) if (line.trim()) say(`install: ${line}`);
    });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const built = await findTemporalBinaries(env);
  if (code !== 0 || !built)
    throw new Error(
      `installing the Temporal server failed (exit code ${code}): ${tail.trim().split('\n').slice(-3).join(' ')}`,
    );
  return built;
}

/** Where a cluster's Temporal service runs from: the binaries, and the root its config is under. */
export interface TemporalHost {
  binaries: TemporalBinaries;
  /** The folder writeTemporalConfig was given. */
  root: string;
  ports: TemporalPorts;
}

/** One Temporal service as its own process. */
export function temporalServiceSpec(service: TemporalService, host: TemporalHost): ClusterProcessSpec {
  return {
    name: service === 'worker' ? 'temporal-worker' : service,
    command: host.binaries.server,
    args: [
      '--root',
      host.root,
      '--config',
      CONFIG_DIR_NAME,
      '--env',
      CONFIG_ENV_NAME,
      '--allow-no-auth',
      'start',
      '--service',
      service,
    ],
    // The internal worker serves no gRPC of its own: it is up once it joins the membership ring.
    ready: () => portOpen(service === 'worker' ? host.ports.membership.worker : host.ports.grpc[service]),
    readyTimeoutMs: 90_000,
    stopGraceMs: 15_000,
  };
}

/** Creates the two databases with the server's SQL tool and brings both schemas to the latest version. */
export async function setupSchemas(
  sqlTool: string,
  postgresPort: number,
  say: (line: string) => void,
): Promise<void> {
  for (const [database, schema] of Object.entries(SCHEMAS)) {
    const common = [
      '--plugin',
      'postgres12',
      '--endpoint',
      '127.0.0.1',
      '--port',
      String(postgresPort),
      '--user',
      TEMPORAL_DB_USER,
      '--password',
      TEMPORAL_DB_PASSWORD,
      '--database',
      database,
    ];
    if (!(await databaseExists(postgresPort, database))) {
      say(`creating database ${database} and its schema (${schema}) with the Temporal SQL tool`);
      await run(sqlTool, [...common, 'create-database'], { timeout: 60_000 });
      await run(sqlTool, [...common, 'setup-schema', '--version', '0.0'], { timeout: 60_000 });
    }
    // Idempotent: applies the versions the database does not have yet.
    await run(sqlTool, [...common, 'update-schema', '--schema-name', schema], { timeout: 120_000 });
  }
}

/** Resolves true once something accepts TCP connections on 127.0.0.1:port. */
export async function portOpen(port: number): Promise<boolean> {
  const { createConnection } = await import('node:net');
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
