// Driving `docker compose` from a test: one project (its name, compose files, profiles and the
// environment it runs with), the engine (podman's Docker API where no Docker engine answers) and
// the locally built base images (scripts/compose-engine.sh, scripts/compose-images.sh).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '../../common/poll.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface PsEntry {
  Service: string;
  Name: string;
  State: string;
  Health: string;
  ExitCode?: number;
}

const UP_TIMEOUT_MS = 20 * 60_000;
export const READY_TIMEOUT_MS = 6 * 60_000;

interface UpOptions {
  build: boolean;
  upTimeoutMs?: number;
  readyTimeoutMs?: number;
}

/**
 * A predicate of `until`: every service of `expected` has a container, the one-shot `jobs` have
 * exited 0, the rest run, healthy where they have a check.
 */
export function servicesReady(expected: string[], jobs: string[] = []) {
  return (entries: PsEntry[]) =>
    expected.every((service) => entries.some((e) => e.Service === service)) &&
    entries.every((e) =>
      jobs.includes(e.Service)
        ? e.State === 'exited' && e.ExitCode === 0
        : e.State === 'running' && (e.Health === '' || e.Health === 'healthy'),
    );
}

interface ProjectOptions {
  name: string;
  files?: string[];
  profiles?: string[];
}

export class ComposeProject {
  /** Set on top of the caller's environment (less its MCP_* settings) for every command. */
  readonly env: Record<string, string> = {};

  constructor(private readonly options: ProjectOptions) {}

  get name(): string {
    return this.options.name;
  }

  run(command: string, args: string[], timeoutMs: number): Promise<Run> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env))
      if (value !== undefined && !name.startsWith('MCP_')) env[name] = value;
    Object.assign(env, this.env);
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(
          new Error(`${command} ${args.join(' ')}: no end within ${timeoutMs} ms\n${stdout}\n${stderr}`),
        );
      }, timeoutMs);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** `docker compose -p <project> [-f …] [--profile …] …`, which must succeed. */
  async compose(args: string[], timeoutMs = 120_000): Promise<Run> {
    const files = (this.options.files ?? []).flatMap((file) => ['-f', file]);
    const profiles = (this.options.profiles ?? []).flatMap((profile) => ['--profile', profile]);
    const result = await this.run(
      'docker',
      ['compose', '-p', this.name, ...files, ...profiles, ...args],
      timeoutMs,
    );
    if (result.code !== 0)
      throw new Error(
        `docker compose ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`,
      );
    return result;
  }

  async ps(all = false): Promise<PsEntry[]> {
    const { stdout } = await this.compose(['ps', ...(all ? ['--all'] : []), '--format', 'json']);
    const text = stdout.trim();
    if (!text) return [];
    // One JSON object per line (Compose v2.21 and later), or one array.
    return text.startsWith('[') ? JSON.parse(text) : text.split('\n').map((line) => JSON.parse(line));
  }

  /** Waits until `ready` holds of the project's containers; them then. */
  until(ready: (entries: PsEntry[]) => boolean, timeoutMs: number, what: string): Promise<PsEntry[]> {
    return pollUntil(
      async () => {
        const entries = await this.ps(true);
        return ready(entries) ? entries : undefined;
      },
      {
        timeoutMs,
        intervalMs: 1_000,
        timeoutError: (err) =>
          new Error(`${what}: not within ${timeoutMs} ms (${(err as Error)?.message ?? ''})`),
      },
    );
  }

  /**
   * `up -d` (`--build` or not) until `ready` holds and `url`'s /readyz answers: the time that took,
   * Compose's output and the containers then.
   */
  async upUntilReady(ready: (entries: PsEntry[]) => boolean, url: URL, options: UpOptions) {
    const { build, upTimeoutMs = UP_TIMEOUT_MS, readyTimeoutMs = READY_TIMEOUT_MS } = options;
    const started = Date.now();
    const up = await this.compose(['up', ...(build ? ['--build'] : []), '-d'], upTimeoutMs);
    const entries = await this.until(ready, readyTimeoutMs, `${this.name} ready`);
    await pollUntil(async () => ((await fetch(new URL('/readyz', url))).ok ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    return { ms: Date.now() - started, output: `${up.stdout}\n${up.stderr}`, entries };
  }

  /** The containers, volumes and networks labelled with the project, one list per kind. */
  async leftovers(): Promise<Record<string, string>> {
    const label = `label=com.docker.compose.project=${this.name}`;
    const left: Record<string, string> = {};
    for (const kind of ['container', 'volume', 'network']) {
      const listed = await this.run(
        'docker',
        [kind, 'ls', ...(kind === 'container' ? ['--all'] : []), '--quiet', '--filter', label],
        30_000,
      );
      assert.equal(listed.code, 0, listed.stderr);
      left[kind] = listed.stdout.trim();
    }
    return left;
  }

  /**
   * An engine that answers (podman's Docker API when no Docker engine does) and, on podman, the
   * base images built locally (`imagesArgs` for scripts/compose-images.sh). The engine's name.
   */
  async prepareEngine(imagesArgs: string[] = []): Promise<string> {
    const docker = await this.run('docker', ['version', '--format', '{{json .Server}}'], 30_000);
    if (process.env.DOCKER_HOST === undefined && docker.code !== 0) {
      const engine = await this.run('bash', ['scripts/compose-engine.sh'], 30 * 60_000);
      assert.equal(engine.code, 0, engine.stderr);
      this.env.DOCKER_HOST = engine.stdout.trim().split('\n').at(-1) ?? '';
    }
    const server = await this.run('docker', ['version', '--format', '{{json .Server}}'], 30_000);
    assert.equal(server.code, 0, `a container engine answers: ${server.stderr}`);
    const engine = server.stdout.includes('Podman') ? 'podman' : 'docker';
    if (engine === 'podman') {
      // Podman's API has no BuildKit: Compose uses the engine's own builder.
      this.env.DOCKER_BUILDKIT = '0';
      const images = await this.run('bash', ['scripts/compose-images.sh', ...imagesArgs], 45 * 60_000);
      assert.equal(images.code, 0, images.stderr);
    }
    return engine;
  }
}
