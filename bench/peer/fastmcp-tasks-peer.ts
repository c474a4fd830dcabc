// The peer: fastmcp-tasks (the Python server runtime of the Tasks extension, on Redis) serving an
// equivalent long-running task tool. Installed into a throwaway virtualenv from PyPI for this run
// only: never a dependency of the product.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../launcher/free-port.ts';
import { startTestProcess, type TestProcess } from '../../test/support/child-process.ts';
import { BENCH_CHILD } from '../stack.ts';
import { ensureRedisInstalled, type RedisServer, startRedis } from './redis-server.ts';

/** The package spec installed; override with BENCH_PEER_PACKAGE (e.g. "fastmcp-tasks" for the newest). */
const PEER_PACKAGE = process.env.BENCH_PEER_PACKAGE || 'fastmcp-tasks==4.1.4';
const SERVER_SCRIPT = fileURLToPath(new URL('./fastmcp_tasks_server.py', import.meta.url));

interface Peer {
  url: URL;
  /** e.g. "fastmcp-tasks 4.1.4 on Redis 7.0.15" */
  label: string;
  stop(): Promise<void>;
}

export type PeerStart = { ok: true; peer: Peer } | { ok: false; reason: string };

function run(command: string, args: string[], timeoutMs: number) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs });
  const tail = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n').slice(-3).join(' | ');
  return {
    ok: result.status === 0,
    tail: tail || String(result.error ?? `exit ${result.status}`),
    stdout: result.stdout,
  };
}

/** Creates the virtualenv and installs the package; returns the venv's python or why it could not. */
function installPeer(dir: string): { python: string; version: string } | { reason: string } {
  const venv = join(dir, 'venv');
  const created = run('python3', ['-m', 'venv', venv], 120_000);
  if (!created.ok) return { reason: `python3 -m venv failed: ${created.tail}` };
  const pip = join(venv, 'bin', 'pip');
  const installed = run(pip, ['install', '--disable-pip-version-check', '-q', PEER_PACKAGE], 600_000);
  if (!installed.ok) return { reason: `pip install ${PEER_PACKAGE} failed: ${installed.tail}` };
  const shown = run(pip, ['show', 'fastmcp-tasks'], 60_000);
  const version = /^Version:\s*(\S+)/m.exec(shown.stdout ?? '')?.[1] ?? 'unknown';
  return { python: join(venv, 'bin', 'python'), version };
}

function redisVersion(): string {
  const out = run('redis-server', ['--version'], 10_000).stdout ?? '';
  return /v=(\S+)/.exec(out)?.[1] ?? 'unknown';
}

export async function startPeer(): Promise<PeerStart> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-peer-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const redisProblem = ensureRedisInstalled();
  if (redisProblem) {
    cleanup();
    return { ok: false, reason: redisProblem };
  }
  const installed = installPeer(dir);
  if ('reason' in installed) {
    cleanup();
    return { ok: false, reason: installed.reason };
  }
  let redis: RedisServer | undefined;
  let server: TestProcess | undefined;
  let port = 0;
  try {
    redis = await startRedis();
    port = await freePort();
    server = await startTestProcess({
      name: 'fastmcp-tasks peer',
      command: installed.python,
      args: [SERVER_SCRIPT, String(port), redis.url],
      readyText: 'Uvicorn running on',
      ...BENCH_CHILD,
    });
  } catch (err) {
    await server?.stop();
    await redis?.stop();
    cleanup();
    return {
      ok: false,
      reason: `the peer did not start: ${(err as Error).message.split('\n').slice(-4).join(' | ')}`,
    };
  }
  const started = { redis, server };
  return {
    ok: true,
    peer: {
      url: new URL(`http://127.0.0.1:${port}/mcp`),
      label: `fastmcp-tasks ${installed.version} on Redis ${redisVersion()}`,
      async stop() {
        await started.server.stop();
        await started.redis.stop();
        cleanup();
      },
    },
  };
}
