// PostgreSQL for the cluster: the Debian package's binaries (`apt-get install postgresql`), a data
// folder of our own on a port of our own, reachable on loopback only. Run as root, the server runs
// as the package's `postgres` user (PostgreSQL refuses to run as root).
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { ClusterProcessSpec } from './cluster-process.ts';

const run = promisify(execFile);

export const TEMPORAL_DB_USER = 'temporal';
export const TEMPORAL_DB_PASSWORD = 'temporal';

/** The folder of `postgres`, `initdb` and friends: PG_BIN, else the newest /usr/lib/postgresql/N/bin. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PG_BIN) return env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error(
      'PostgreSQL server binaries not found (looked in /usr/lib/postgresql/*/bin). ' +
        'Install them: apt-get install postgresql (Debian/Ubuntu), or set PG_BIN to the folder holding `postgres`.',
    );
  return join(root, versions[0], 'bin');
}

/** Root runs PostgreSQL as the `postgres` user; anybody else as themselves. */
function asServerUser(command: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command, args };
  return {
    command: 'setpriv',
    args: ['--reuid=postgres', '--regid=postgres', '--init-groups', command, ...args],
  };
}

/** The `postgres` user's ids when we are root (the server's files must be its own). */
function postgresOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root needs the `postgres` user the Debian package creates');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Creates the database cluster in `dataDir` unless it is there already. */
export async function initPostgres(bin: string, dataDir: string): Promise<boolean> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return false;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const owner = postgresOwner();
  if (owner) chownSync(dataDir, owner.uid, owner.gid);
  const { command, args } = asServerUser(join(bin, 'initdb'), [
    '--pgdata',
    dataDir,
    '--username',
    'postgres',
    '--auth',
    'trust',
    '--encoding',
    'UTF8',
    '--locale',
    'C',
  ]);
  await run(command, args, { timeout: 120_000 });
  return true;
}

export interface PostgresOptions {
  bin: string;
  dataDir: string;
  port: number;
}

/** The server process: loopback only, its socket in its data folder, room for every service's pool. */
export function postgresSpec({ bin, dataDir, port }: PostgresOptions): ClusterProcessSpec {
  const { command, args } = asServerUser(join(bin, 'postgres'), [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dataDir}`,
    '-c',
    'max_connections=300',
    '-c',
    'shared_buffers=128MB',
  ]);
  return {
    name: 'postgres',
    command,
    args,
    ready: async () => (await psql(port, 'select 1')).trim() === '1',
    readyTimeoutMs: 60_000,
    // Fast shutdown: the postmaster ends its backends and stops; SIGTERM would wait for clients.
    stopSignal: 'SIGINT',
    stopGraceMs: 20_000,
  };
}

/** Runs one statement as the superuser over TCP; its unaligned output. */
async function psql(port: number, sql: string, database = 'postgres'): Promise<string> {
  const { stdout } = await run(
    'psql',
    [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      '-d',
      database,
      '-XAtq',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      sql,
    ],
    { timeout: 10_000 },
  );
  return stdout;
}

/** The login role the Temporal services and the schema tool use. */
export async function ensureTemporalRole(port: number): Promise<void> {
  const exists = (await psql(port, `select 1 from pg_roles where rolname = '${TEMPORAL_DB_USER}'`)).trim();
  if (exists === '1') return;
  await psql(port, `create role ${TEMPORAL_DB_USER} login createdb password '${TEMPORAL_DB_PASSWORD}'`);
}

export async function databaseExists(port: number, name: string): Promise<boolean> {
  return (await psql(port, `select 1 from pg_database where datname = '${name}'`)).trim() === '1';
}

/**
 * Lets the `postgres` user reach `dataDir` when root made its parent folders: every folder from the
 * data folder's parent up to `top` gets the "others may pass" bit (folders made by us, e.g. a
 * mkdtemp folder, are 0700).
 */
export function openPathTo(dataDir: string, top: string): void {
  if (process.getuid?.() !== 0) return;
  for (let dir = dirname(dataDir); dir.startsWith(top); dir = dirname(dir)) {
    if (!existsSync(dir)) continue;
    try {
      const mode = statSync(dir).mode & 0o777;
      if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o011);
    } catch {
      // not ours to change; initdb will say so
    }
    if (dir === top) break;
  }
}
