// Finds the Temporal CLI binary: $TEMPORAL_CLI_PATH, then PATH, then the Go bin folder.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export const TEMPORAL_CLI_VERSION = '1.5.1';

export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates: string[] = [];
  if (env.TEMPORAL_CLI_PATH) candidates.push(env.TEMPORAL_CLI_PATH);
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir) candidates.push(join(dir, 'temporal'));
  if (env.GOBIN) candidates.push(join(env.GOBIN, 'temporal'));
  candidates.push(join(env.GOPATH || join(homedir(), 'go'), 'bin', 'temporal'));
  return candidates.find((path) => existsSync(path) && versionOf(path) === TEMPORAL_CLI_VERSION);
}

// A go-installed CLI reports "0.0.0-DEV"; its module version is in the Go build info.
function versionOf(path: string): string | undefined {
  const run = (file: string, args: string[]) => {
    try {
      return execFileSync(file, args, {
        encoding: 'utf8',
        timeout: 10_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      return '';
    }
  };
  const built = /^\s*mod\s+github\.com\/temporalio\/cli\s+v(\S+)/m.exec(
    run('go', ['version', '-m', path]),
  )?.[1];
  return built ?? /(\d+\.\d+\.\d+)/.exec(run(path, ['--version']))?.[1];
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
