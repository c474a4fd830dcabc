// Finds the Temporal CLI binary ($TEMPORAL_CLI_PATH, then PATH, then the Go bin folder), or installs
// it with scripts/install-temporal-cli.sh (the same script as `npm run temporal:install`).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPORAL_CLI_VERSION = '1.5.1';

const INSTALL_SCRIPT = fileURLToPath(new URL('../scripts/install-temporal-cli.sh', import.meta.url));

function run(file: string, args: string[], env?: NodeJS.ProcessEnv): string {
  try {
    return execFileSync(file, args, {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      env,
    });
  } catch {
    return '';
  }
}

/** The folders `go install` writes to: GOBIN, else the first GOPATH's bin (from `go env` when Go is there). */
function goBinFolders(env: NodeJS.ProcessEnv): string[] {
  const folders: string[] = [];
  const fromGo = run('go', ['env', 'GOBIN', 'GOPATH'], env).split('\n');
  for (const [gobin, gopath] of [
    [env.GOBIN, env.GOPATH],
    [fromGo[0]?.trim(), fromGo[1]?.trim()],
  ]) {
    if (gobin) folders.push(gobin);
    else if (gopath) folders.push(join(gopath.split(delimiter)[0] as string, 'bin'));
  }
  folders.push(join(env.HOME || homedir(), 'go', 'bin'));
  return [...new Set(folders)];
}

export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates: string[] = [];
  if (env.TEMPORAL_CLI_PATH) candidates.push(env.TEMPORAL_CLI_PATH);
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir) candidates.push(join(dir, 'temporal'));
  candidates.push(...goBinFolders(env).map((dir) => join(dir, 'temporal')));
  return candidates.find((path) => existsSync(path) && versionOf(path, env) === TEMPORAL_CLI_VERSION);
}

// A go-installed CLI reports "0.0.0-DEV"; its module version is in the Go build info.
function versionOf(path: string, env: NodeJS.ProcessEnv): string | undefined {
  const built = /^\s*mod\s+github\.com\/temporalio\/cli\s+v(\S+)/m.exec(
    run('go', ['version', '-m', path], env),
  )?.[1];
  return built ?? /(\d+\.\d+\.\d+)/.exec(run(path, ['--version'], env))?.[1];
}

export function requireTemporalCli(env: NodeJS.ProcessEnv = process.env): string {
  const path = findTemporalCli(env);
  if (!path) {
    throw new Error(
      `Temporal CLI v${TEMPORAL_CLI_VERSION} not found (looked at TEMPORAL_CLI_PATH, PATH and the Go bin folder). ` +
        'Run `npm run temporal:install` first.',
    );
  }
  return path;
}

/**
 * The pinned CLI: found, or installed by the install script (it builds it with Go). The script's
 * messages and build progress go to `onOutput` as they come. Rejects with the script's last words
 * when it cannot install (no Go, a failed build). The script runs in a process group of its own
 * (a Ctrl-C in the terminal reaches only the caller); `signal` stops it, go and all, at once.
 */
export async function ensureTemporalCli(
  onOutput: (chunk: Buffer) => void,
  options: { env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<string> {
  const { env = process.env, signal } = options;
  const found = findTemporalCli(env);
  if (found) return found;
  signal?.throwIfAborted();
  const child = spawn('bash', [INSTALL_SCRIPT], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const stop = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {}
  };
  signal?.addEventListener('abort', stop, { once: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2_000);
    onOutput(chunk);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  }).finally(() => signal?.removeEventListener('abort', stop));
  signal?.throwIfAborted();
  const path = stdout.trim().split('\n').pop()?.trim();
  if (code !== 0 || !path || !existsSync(path)) {
    const why = stderr.trim().split('\n').slice(-3).join(' ');
    throw new Error(
      `installing the Temporal CLI v${TEMPORAL_CLI_VERSION} failed (exit code ${code}): ${why}`,
    );
  }
  return path;
}
