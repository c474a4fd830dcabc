// Redis for the peer, from the Debian package: installed with apt-get when absent, started on a
// free loopback port with no persistence, stopped with the run.
import { spawnSync } from 'node:child_process';
import { freePort } from '../../launcher/free-port.ts';
import { startTestProcess, type TestProcess } from '../../test/support/child-process.ts';
import { BENCH_CHILD } from '../stack.ts';

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** Installs redis-server from Debian when it is missing; returns why not when that fails. */
export function ensureRedisInstalled(): string | undefined {
  if (onPath('redis-server')) return undefined;
  const run = (args: string[]) =>
    spawnSync('apt-get', args, {
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  const update = run(['update', '-qq']);
  if (update.status !== 0) return `apt-get update failed: ${(update.stderr || String(update.error)).trim()}`;
  const install = run(['install', '-y', '-qq', 'redis-server']);
  if (install.status !== 0)
    return `apt-get install redis-server failed: ${(install.stderr || String(install.error)).trim()}`;
  return onPath('redis-server') ? undefined : 'redis-server is not on PATH after installing it';
}

export interface RedisServer extends TestProcess {
  url: string;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const child = await startTestProcess({
    name: 'redis-server',
    command: 'redis-server',
    args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    readyText: 'Ready to accept connections',
    ...BENCH_CHILD,
  });
  return { ...child, url: `redis://127.0.0.1:${port}/0` };
}
