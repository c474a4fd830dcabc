// The docker compose stack and the Dockerfile, checked without a Docker engine: the structure of
// both files, and that everything they run exists in the project and in the image.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { DEFAULT_TASK_QUEUE } from '../../common/temporal-env.ts';
import { loadCatalogFile } from '../../gateway/mcp/catalog-file.ts';
import {
  BUILT_IN_CATALOG,
  BUILT_IN_CATALOG_COMPILED,
  GATEWAY_BUNDLE,
  GATEWAY_NODE_FLAGS,
} from '../../gateway/runtime-flags.ts';
import { loadSettings } from '../../gateway/settings/index.ts';
import { NAMESPACE_RETENTION } from '../../launcher/cluster/namespace.ts';
import {
  DYNAMIC_CONFIG,
  SCHEMAS,
  TEMPORAL_DB,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_SERVICES,
  VISIBILITY_DB,
} from '../../launcher/cluster/temporal-server.ts';
import { SEARCH_ATTRIBUTES } from '../../launcher/dev-server.ts';
import { TEMPORAL_CLI_VERSION } from '../../launcher/temporal-cli.ts';
import { DEFAULT_BUNDLE_PATH } from '../../worker/options.ts';
import { MINE_CHAIN_WORKFLOW } from '../../workflows/mining/types.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

// ---- docker-compose.yml -------------------------------------------------------------------------

interface Healthcheck {
  test: string[];
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
}
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: Healthcheck;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  init?: boolean;
  profiles?: string[];
  restart?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
// `docker compose up` runs the services without a profile: the checks below are about those. The
// profile `cluster` has its own checks at the end.
const services = Object.fromEntries(
  Object.entries(compose.services).filter(([, svc]) => !svc.profiles?.length),
) as Record<string, Service>;
const service = (name: string): Service => {
  const found = services[name];
  assert.ok(found, `service ${name}`);
  return found;
};

/**
 * "host-ip:host:container" / "host:container" → the container port and the host binding, with
 * every variable at its default.
 */
function parsePort(spec: string): { host?: string; hostPort: number; containerPort: number } {
  const parts = interpolate(spec, {}).split(':');
  const containerPort = Number(parts.at(-1));
  const hostPort = Number(parts.at(-2));
  return { host: parts.length === 3 ? parts[0] : undefined, hostPort, containerPort };
}

/** The value following `flag` in an argument list. */
function flagValue(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

const DURATION = /^\d+(ms|s|m)$/;

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?message}` with `env`. */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
    const value = env[name];
    if (value) return value;
    if (kind === '?') throw new Error(`compose refuses to start: ${rest}`);
    return kind === '-' ? (rest ?? '') : '';
  });
}

/** A short-syntax bind mount, "source:target[:mode]", as compose reads it with `env`. */
function bindMount(
  spec: string,
  env: Record<string, string>,
): { source: string; target: string; mode?: string } {
  const [source, target, mode] = interpolate(spec, env).split(':');
  return { source: source as string, target: target as string, ...(mode ? { mode } : {}) };
}

// ---- Dockerfile ---------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
  stage: string;
}

/** Instructions with continuation lines joined and comments dropped, each tagged with its stage. */
function parseDockerfile(text: string): {
  instructions: Instruction[];
  stages: string[];
  args: Map<string, string>;
} {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const instructions: Instruction[] = [];
  const stages: string[] = [];
  const args = new Map<string, string>();
  let stage = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(\w+)\s+(.*)$/.exec(line);
    assert.ok(match, `Dockerfile line: ${line}`);
    const keyword = (match[1] ?? '').toUpperCase();
    const rest = match[2] ?? '';
    if (keyword === 'FROM') {
      stage = /\bAS\s+(\S+)/i.exec(rest)?.[1] ?? `stage${stages.length}`;
      stages.push(stage);
    }
    if (keyword === 'ARG' && !stage) {
      const [name, value] = rest.split('=');
      if (name && value !== undefined) args.set(name.trim(), value.trim());
    }
    instructions.push({ keyword, args: rest, stage });
  }
  return { instructions, stages, args };
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const finalStage = dockerfile.stages.at(-1) as string;
const inStage = (stage: string, keyword: string) =>
  dockerfile.instructions.filter((i) => i.stage === stage && i.keyword === keyword);
const expand = (text: string) =>
  text.replace(/\$\{(\w+)\}/g, (_, name: string) => dockerfile.args.get(name) ?? `\${${name}}`);

/** Sources COPY'd from the build context into `stage`, as [source, destination] pairs. */
function contextCopies(stage: string): Array<[string, string]> {
  return inStage(stage, 'COPY')
    .filter((copy) => !copy.args.includes('--from='))
    .flatMap((copy) => {
      const parts = copy.args.split(/\s+/);
      const destination = parts.at(-1) as string;
      return parts.slice(0, -1).map((source): [string, string] => [source, destination]);
    });
}

/** Does `stage` hold the project file `path` (relative to WORKDIR): copied from the context or a stage? */
function copiedInto(stage: string, path: string): boolean {
  const fromContext = contextCopies(stage).some(([source]) => {
    const clean = normalize(source).replace(/\/$/, '');
    return path === clean || path.startsWith(`${clean}/`) || clean === '.';
  });
  const fromStage = inStage(stage, 'COPY')
    .filter((copy) => copy.args.includes('--from='))
    .some((copy) => {
      const destination = normalize(copy.args.split(/\s+/).at(-1) as string).replace(/\/$/, '');
      return path === destination || path.startsWith(`${destination}/`);
    });
  return fromContext || fromStage;
}

// ---- package.json and the commands the images run -----------------------------------------------

const pkg = JSON.parse(read('package.json')) as {
  name: string;
  exports: Record<string, { source: string }>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/**
 * The entry file a package.json script runs through tsx ("tsx f.ts", or "node [flags] --import tsx
 * f.ts").
 */
function scriptEntry(command: string): string | undefined {
  return /^(?:tsx|node(?:\s+--[\w-]+)*\s+--import tsx)\s+(\S+\.ts)$/.exec(command.trim())?.[1];
}

/** The compiled gateway, as the image runs it: node, the gateway's flags, the bundle. */
const COMPILED_GATEWAY = ['node', ...GATEWAY_NODE_FLAGS, GATEWAY_BUNDLE];

/**
 * Checks that a command an image runs is one of package.json's: `npm run X` with X a script,
 * `node --import tsx F` where F is the entry file of a script (the same program, without npm
 * between the container's signals and node), or the compiled gateway. Returns the entry file (for
 * the compiled gateway, the source it is built from), if any.
 */
function assertPackageCommand(
  command: string[],
  where: string,
): { entry: string; compiled: boolean } | undefined {
  if (command[0] === 'npm') {
    assert.equal(command[1], 'run', `${where}: ${command.join(' ')}`);
    assert.ok(pkg.scripts[command[2] ?? ''], `${where}: npm run ${command[2]} has no script in package.json`);
    return undefined;
  }
  if (command.at(-1) === GATEWAY_BUNDLE) {
    assert.deepEqual(command, COMPILED_GATEWAY, `${where}: ${command.join(' ')}`);
    return { entry: 'gateway/main.ts', compiled: true };
  }
  assert.deepEqual(command.slice(0, 3), ['node', '--import', 'tsx'], `${where}: ${command.join(' ')}`);
  const file = command[3] as string;
  assert.equal(command.length, 4, `${where}: ${command.join(' ')}`);
  const scripts = Object.entries(pkg.scripts).filter(([, script]) => scriptEntry(script) === file);
  assert.ok(scripts.length > 0, `${where}: ${file} is not the entry of any package.json script`);
  assert.ok(existsSync(join(ROOT, file)), `${where}: ${file} does not exist`);
  return { entry: file, compiled: false };
}

/** The TypeScript entry a command runs: its tsx entry, or what the compiled gateway is built from. */
function sourceEntry(command: string[]): string | undefined {
  if (command.at(-1) === GATEWAY_BUNDLE) return 'gateway/main.ts';
  return command[0] === 'node' && command[1] === '--import' ? command[3] : undefined;
}

/** Relative modules a file loads (static and dynamic imports, re-exports, `new URL(x, import.meta.url)`). */
function localImports(file: string): { files: string[]; packages: string[] } {
  const source = read(file)
    .split('\n')
    .filter((line) => !/^\s*(import|export)\s+type\s/.test(line))
    .join('\n');
  const specifiers = [
    ...source.matchAll(/\bfrom\s+'([^']+)'/g),
    ...source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
    ...source.matchAll(/^\s*import\s+'([^']+)'/gm),
    ...source.matchAll(/new URL\(\s*'([^']+)',\s*import\.meta\.url\s*\)/g),
  ].map((match) => match[1] as string);
  const files: string[] = [];
  const packages: string[] = [];
  for (const specifier of specifiers) {
    if (specifier.startsWith('.')) {
      const target = normalize(join(dirname(file), specifier));
      // Build outputs (dist/) need not exist in the working tree; the image gets them from a stage.
      if (target.startsWith('dist/')) files.push(target);
      else if (existsSync(join(ROOT, target)) && statSync(join(ROOT, target)).isFile()) files.push(target);
      else if (existsSync(join(ROOT, target, 'index.ts'))) files.push(join(target, 'index.ts'));
      else if (existsSync(join(ROOT, target)))
        continue; // a folder named by URL (e.g. the root)
      else assert.fail(`${file} imports ${specifier}, which does not exist`);
    } else if (specifier === pkg.name || specifier.startsWith(`${pkg.name}/`)) {
      // The package by its own name (`temporal-mcp-gateway/workflow`): its sources, as the bundler aliases it.
      const source = pkg.exports[`.${specifier.slice(pkg.name.length)}`]?.source;
      assert.ok(source, `${file} imports ${specifier}, which package.json does not export`);
      files.push(normalize(source));
    } else if (!specifier.startsWith('node:')) {
      const parts = specifier.split('/');
      packages.push(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string));
    }
  }
  return { files, packages };
}

/** Every file and package `entry` loads, transitively. */
function loadedBy(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    if (!file.endsWith('.ts')) continue;
    const found = localImports(file);
    queue.push(...found.files);
    for (const name of found.packages) packages.add(name);
  }
  return { files, packages };
}

/** Every command the stack runs in the app image: service commands and health checks. */
function appCommands(): Array<{ where: string; command: string[] }> {
  const commands: Array<{ where: string; command: string[] }> = [];
  for (const [name, svc] of Object.entries(services)) {
    if (!svc.build) continue;
    if (svc.command) commands.push({ where: `${name} command`, command: svc.command });
    const check = svc.healthcheck?.test;
    if (check && check[0] === 'CMD' && check[2] !== '-e')
      commands.push({ where: `${name} healthcheck`, command: check.slice(1) });
  }
  const cmd = inStage(finalStage, 'CMD').at(-1);
  if (cmd) commands.push({ where: 'Dockerfile CMD', command: JSON.parse(cmd.args) as string[] });
  return commands;
}

// ---- the tests ----------------------------------------------------------------------------------

describe('docker-compose.yml', () => {
  test('has exactly the temporal, gateway and worker services', async () => {
    assert.deepEqual(Object.keys(services).sort(), ['gateway', 'temporal', 'worker']);
  });

  test('temporal: the Temporal CLI image at the pinned version, a dev server on 0.0.0.0', async () => {
    const temporal = service('temporal');
    assert.equal(temporal.image, `temporalio/temporal:${TEMPORAL_CLI_VERSION}`);
    const command = temporal.command ?? [];
    assert.deepEqual(command.slice(0, 2), ['server', 'start-dev']);
    assert.equal(flagValue(command, '--ip'), '0.0.0.0');
    assert.equal(command.includes('--headless'), false, 'the Web UI is served');
    const dynamicConfig = command.filter((_, i) => command[i - 1] === '--dynamic-config-value');
    assert.deepEqual(
      dynamicConfig,
      ['matching.enableFairness=true', 'matching.numTaskqueueWritePartitions=1'],
      'fairness on, in one partition',
    );
  });

  test('temporal: its database lives on a named volume', async () => {
    const temporal = service('temporal');
    const db = flagValue(temporal.command ?? [], '--db-filename');
    assert.ok(db, '--db-filename');
    const mounts = (temporal.volumes ?? []).map((spec) => {
      const [source, target] = spec.split(':');
      return { source: source as string, target: target as string };
    });
    const mount = mounts.find((m) => db.startsWith(`${m.target.replace(/\/$/, '')}/`));
    assert.ok(mount, `${db} is on a mounted volume (${temporal.volumes})`);
    assert.ok(compose.volumes && mount.source in compose.volumes, `volume ${mount.source} is declared`);
  });

  test('temporal: registers the search attributes the gateway writes', async () => {
    const command = service('temporal').command ?? [];
    const registered = command.flatMap((arg, i) => (arg === '--search-attribute' ? [command[i + 1]] : []));
    assert.deepEqual(
      registered.sort(),
      Object.entries(SEARCH_ATTRIBUTES)
        .map(([name, type]) => `${name}=${type}`)
        .sort(),
    );
  });

  test('temporal: frontend 7233 and Web UI 8233 published on the host loopback only (no auth)', async () => {
    const ports = (service('temporal').ports ?? []).map(parsePort);
    assert.deepEqual(ports.map((p) => p.containerPort).sort(), [7233, 8233]);
    for (const port of ports) assert.equal(port.host, '127.0.0.1', `port ${port.containerPort}`);
  });

  test('gateway: built from the Dockerfile, listening on 0.0.0.0:3000, published as 3000', async () => {
    const gateway = service('gateway');
    assert.equal(gateway.build?.context, '.');
    assert.ok(existsSync(join(ROOT, gateway.build?.dockerfile ?? '')), 'the Dockerfile exists');
    assert.equal(gateway.environment?.MCP_HOST, '0.0.0.0');
    assert.equal(gateway.environment?.MCP_PORT, '3000');
    assert.deepEqual((gateway.ports ?? []).map(parsePort), [
      { host: undefined, hostPort: 3000, containerPort: 3000 },
    ]);
  });

  test('gateway: tokens from the environment if set, never written in the file; else one generated on its volume', async () => {
    const gateway = service('gateway');
    assert.match(gateway.environment?.MCP_AUTH_TOKENS ?? '', /^\$\{MCP_AUTH_TOKENS:-\}$/);
    const file = gateway.environment?.MCP_FIRST_START_TOKEN_FILE ?? '';
    const home = (gateway.volumes ?? [])
      .map((spec) => bindMount(spec, {}))
      .find((m) => file.startsWith(`${m.target}/`));
    assert.ok(home && compose.volumes && home.source in compose.volumes, `${file} lies on a named volume`);
  });

  test('the first-start token: generated once (principal "user", 256 random bits, mode 600), kept, and only when nothing else authenticates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'first-start-token-'));
    try {
      const file = join(dir, 'gateway-data', 'auth-tokens');
      const env = { MCP_HOST: '0.0.0.0', MCP_FIRST_START_TOKEN_FILE: file };
      const first = await loadSettings(env);
      assert.equal(first.firstStartTokenFile, file);
      const [principal, token] = [...first.authTokens.entries()][0] ?? [];
      assert.equal(principal, 'user');
      assert.match(token ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(readFileSync(file, 'utf8'), `user:${token}\n`);
      assert.deepEqual((await loadSettings(env)).authTokens, first.authTokens, 'the same token on a restart');

      const other = join(dir, 'other', 'auth-tokens');
      const given = await loadSettings({
        ...env,
        MCP_FIRST_START_TOKEN_FILE: other,
        MCP_AUTH_TOKENS: `alice:${'a'.repeat(40)}`,
      });
      assert.deepEqual([...given.authTokens.keys()], ['alice']);
      assert.equal(given.firstStartTokenFile, undefined);
      const loopback = await loadSettings({ MCP_HOST: '127.0.0.1', MCP_FIRST_START_TOKEN_FILE: other });
      assert.equal(loopback.authTokens.size, 0, 'loopback needs no token');
      assert.equal(existsSync(other), false, 'nothing written when not needed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('no health check argument holds a space: podman 4.3 splits exec-form arguments at spaces', async () => {
    for (const [name, svc] of Object.entries(compose.services))
      for (const arg of (svc as Service).healthcheck?.test ?? [])
        assert.ok(!/\s/.test(arg), `${name}: ${arg}`);
  });

  test('worker: the same image as the gateway, two replicas, no published port', async () => {
    const worker = service('worker');
    const gateway = service('gateway');
    assert.deepEqual(worker.build, gateway.build);
    assert.equal(worker.image, gateway.image);
    assert.equal(worker.deploy?.replicas, 2);
    assert.equal(worker.ports, undefined);
  });

  test('gateway and workers reach the temporal service and agree on namespace and task queue', async () => {
    const frontendPort = 7233;
    for (const name of ['gateway', 'worker']) {
      const env = service(name).environment ?? {};
      assert.equal(env.TEMPORAL_ADDRESS, `temporal:${frontendPort}`, name);
      assert.equal(
        env.TEMPORAL_NAMESPACE,
        flagValue(service('temporal').command ?? [], '--namespace') ?? 'default',
      );
      assert.equal(env.TEMPORAL_TASK_QUEUE, DEFAULT_TASK_QUEUE, name);
    }
  });

  test('every variable the services set is one the code they run reads', async () => {
    // Read by the gateway's authentication (DESIGN: principal:token pairs); checked above.
    const pending = new Set(['MCP_AUTH_TOKENS']);
    for (const name of ['gateway', 'worker']) {
      const entries = [service(name).command ?? [], service(name).healthcheck?.test.slice(1) ?? []]
        .map(sourceEntry)
        .filter((entry): entry is string => entry !== undefined);
      // Build outputs (dist/) are compiled from sources in the set; a fresh checkout has none yet.
      const code = entries
        .flatMap((entry) => [...loadedBy(entry).files].filter((file) => !file.startsWith('dist/')))
        .map((file) => read(file))
        .join('\n');
      for (const variable of Object.keys(service(name).environment ?? {})) {
        if (pending.has(variable)) continue;
        assert.ok(code.includes(variable), `${name} sets ${variable}, which its code does not read`);
      }
    }
  });

  test('every service has a health check: temporal cluster health, gateway /readyz, worker polling', async () => {
    for (const [name, svc] of Object.entries(services)) {
      const check = svc.healthcheck;
      assert.ok(check, `${name} has a health check`);
      assert.equal(check.test[0], 'CMD', `${name}: exec form (the images have no shell to rely on)`);
      for (const key of ['interval', 'timeout', 'start_period'] as const)
        assert.match(check[key] ?? '', DURATION, `${name} ${key}`);
      assert.ok((check.retries ?? 0) >= 1, `${name} retries`);
    }
    const temporal = service('temporal').healthcheck?.test ?? [];
    assert.deepEqual(temporal.slice(1, 5), ['temporal', 'operator', 'cluster', 'health']);
    assert.equal(flagValue(temporal, '--address'), '127.0.0.1:7233');

    const gateway = service('gateway').healthcheck?.test ?? [];
    assert.deepEqual(gateway.slice(1, 3), ['node', '-e']);
    assert.match(
      gateway[3] ?? '',
      new RegExp(`http://127\\.0\\.0\\.1:${service('gateway').environment?.MCP_PORT}/readyz`),
    );

    const worker = service('worker').healthcheck?.test ?? [];
    assert.deepEqual(worker.slice(1), ['node', '--import', 'tsx', 'scripts/worker-healthcheck.ts']);
  });

  test('gateway and workers start once Temporal is healthy', async () => {
    for (const [name, svc] of Object.entries(services)) {
      for (const [target, { condition }] of Object.entries(svc.depends_on ?? {})) {
        assert.equal(condition, 'service_healthy', `${name} → ${target}`);
        assert.ok(services[target]?.healthcheck, `${target} has the health check ${name} waits for`);
      }
    }
    for (const name of ['gateway', 'worker']) assert.ok(service(name).depends_on?.temporal, name);
  });

  test('gateway: serves a catalog file from a host folder when MCP_TOOLS_FILE names one, the built-in one otherwise', async () => {
    const gateway = service('gateway');
    const mounts = (gateway.volumes ?? []).filter((spec) => spec.includes(':/catalog'));
    assert.equal(mounts.length, 1, JSON.stringify(gateway.volumes));
    const spec = mounts[0] as string;
    assert.match(spec, /^\$\{MCP_CATALOG_DIR:-[^}]+\}:/, 'the host folder comes from MCP_CATALOG_DIR');

    // Nothing set: the default folder (in the repository) is mounted read-only, the built-in catalog served.
    const byDefault = bindMount(spec, {});
    assert.equal(byDefault.mode, 'ro');
    assert.ok(
      statSync(join(ROOT, byDefault.source)).isDirectory(),
      `${byDefault.source} is a folder of the repository`,
    );
    const unset = interpolate(gateway.environment?.MCP_TOOLS_FILE ?? '', {});
    assert.equal(unset, '');
    const builtIn = await loadSettings({ MCP_TOOLS_FILE: unset });
    assert.equal(builtIn.toolsFile, undefined);
    assert.deepEqual(
      builtIn.tools.map((tool) => tool.name),
      ['start_mining'],
    );

    // A folder of one's own: mounted where MCP_TOOLS_FILE, as the container sees it, points.
    const own = { MCP_CATALOG_DIR: '/home/me/tools', MCP_TOOLS_FILE: '/catalog/mine.yaml' };
    const mount = bindMount(spec, own);
    assert.equal(mount.source, '/home/me/tools');
    const file = interpolate(gateway.environment?.MCP_TOOLS_FILE ?? '', own);
    assert.equal(file, '/catalog/mine.yaml');
    assert.ok(file.startsWith(`${mount.target}/`), `${file} lies in the mounted folder ${mount.target}`);
  });

  test("gateway: the default catalog folder's example serves workflows the compose workers run", async () => {
    const gateway = service('gateway');
    const mount = bindMount((gateway.volumes ?? [])[0] as string, {});
    // The README's compose section names it as the container sees it.
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('## Run with Docker Compose'));
    const named = /MCP_TOOLS_FILE=(\S+) docker compose up/.exec(
      section.slice(0, section.indexOf('\n## ')),
    )?.[1];
    assert.ok(
      named?.startsWith(`${mount.target}/`),
      `README: MCP_TOOLS_FILE=${named} lies in ${mount.target}`,
    );
    const onHost = join(ROOT, mount.source, (named as string).slice(mount.target.length + 1));
    const workerQueue = service('worker').environment?.TEMPORAL_TASK_QUEUE as string;
    const tools = await loadCatalogFile(onHost, { taskQueue: workerQueue, waitBudgetMs: 1_000 });
    assert.ok(tools.length > 0);
    for (const tool of tools) {
      assert.equal(tool.taskQueue, workerQueue, `${tool.name}: the workers' task queue`);
      assert.equal(tool.workflow, MINE_CHAIN_WORKFLOW, `${tool.name}: a workflow the workers run`);
    }
  });

  test('the app containers log JSON lines: the image says so and compose does not say otherwise', async () => {
    const env = inStage(finalStage, 'ENV').map((e) => e.args);
    assert.ok(env.includes('LOG_FORMAT=json'), env.join('\n'));
    for (const name of ['gateway', 'worker'])
      assert.equal(service(name).environment?.LOG_FORMAT, undefined, name);
  });

  test('the app containers run an init process so signals reach node and children are reaped', async () => {
    for (const name of ['gateway', 'worker']) assert.equal(service(name).init, true, name);
  });
});

describe('Dockerfile', () => {
  test('is multi-stage, on the current Node LTS (an even major, 24 or later) slim image', async () => {
    const froms = dockerfile.instructions.filter((i) => i.keyword === 'FROM');
    assert.ok(froms.length >= 2, 'at least a build and a runtime stage');
    for (const from of froms) {
      const image = expand(from.args.split(/\s+/)[0] as string);
      const major = Number(/^node:(\d+)-slim$/.exec(image)?.[1]);
      assert.ok(major >= 24 && major % 2 === 0, `${image} is a Node LTS slim image`);
    }
  });

  test('the runtime stage installs from the lockfile, dev dependencies included (the worker, tsx, the optional peers)', async () => {
    const runs = inStage(finalStage, 'RUN').map((run) => run.args);
    assert.ok(
      runs.some((run) => /\bnpm ci\b.*--include=dev/.test(run)),
      `npm ci --include=dev in the final stage: ${runs}`,
    );
    for (const run of runs)
      assert.doesNotMatch(
        run,
        /\bnpm (install|i)\b|\bnpm ci\b(?!.*--include=dev)/,
        `final-stage RUN: ${run}`,
      );
  });

  test('the runtime stage runs as the unprivileged node user', async () => {
    const users = inStage(finalStage, 'USER');
    assert.equal(users.at(-1)?.args, 'node');
    const order = dockerfile.instructions.filter((i) => i.stage === finalStage);
    const lastUser = order.lastIndexOf(users.at(-1) as Instruction);
    const lastRun = order.map((i) => i.keyword).lastIndexOf('RUN');
    assert.ok(lastUser > lastRun, 'USER comes after the last RUN, so nothing runs as root at run time');
  });

  test('ships the prebuilt workflow bundle and points WORKFLOW_BUNDLE_PATH at it', async () => {
    const builder = dockerfile.stages.find((stage) =>
      inStage(stage, 'RUN').some((run) => run.args.includes('npm run build:workflows')),
    );
    assert.ok(builder, 'a stage runs npm run build:workflows');
    assert.ok(pkg.scripts['build:workflows'], 'build:workflows is a package.json script');
    const bundle = relative(ROOT, DEFAULT_BUNDLE_PATH);
    const copy = inStage(finalStage, 'COPY').find((c) => c.args.includes(`--from=${builder}`));
    assert.ok(copy, `the final stage copies from ${builder}`);
    const [, from, to] = copy.args.split(/\s+/);
    assert.equal(from, `/app/${bundle}`);
    const env = inStage(finalStage, 'ENV').map((e) => e.args);
    const bundlePath = env.map((e) => /^WORKFLOW_BUNDLE_PATH=(\S+)$/.exec(e)?.[1]).find(Boolean);
    assert.equal(bundlePath, normalize(join('/app', to as string)));
  });

  test('ships the compiled gateway from a stage that builds it', async () => {
    const builder = dockerfile.stages.find((stage) =>
      inStage(stage, 'RUN').some((run) => run.args.includes('npm run build:gateway')),
    );
    assert.ok(builder, 'a stage runs npm run build:gateway');
    assert.equal(scriptEntry(pkg.scripts['build:gateway'] ?? ''), 'scripts/build-gateway.ts');
    // The bundle is built from the gateway's sources: every file gateway/main.ts loads.
    for (const file of loadedBy('gateway/main.ts').files)
      assert.ok(copiedInto(builder, file), `${builder}: the build needs ${file}`);
    const copy = inStage(finalStage, 'COPY').find((c) => c.args.includes(`/app/${GATEWAY_BUNDLE}`));
    assert.ok(copy, `the final stage copies /app/${GATEWAY_BUNDLE}`);
    assert.equal(copy.args.split(/\s+/)[0], `--from=${builder}`);
    assert.equal(normalize(copy.args.split(/\s+/).at(-1) as string), GATEWAY_BUNDLE);
  });

  test('ships the built-in catalog compiled beside the compiled gateway, from a stage that has its sources', async () => {
    const builder = dockerfile.stages.find((stage) =>
      inStage(stage, 'RUN').some((run) => run.args.includes('npm run build:gateway')),
    );
    assert.ok(builder, 'a stage runs npm run build:gateway');
    // The gateway loads it by path, not by an import: the bundle's sources do not name it.
    for (const file of loadedBy(BUILT_IN_CATALOG).files)
      assert.ok(copiedInto(builder, file), `${builder}: the build needs ${file}`);
    const compiled = join(dirname(GATEWAY_BUNDLE), BUILT_IN_CATALOG_COMPILED);
    const copy = inStage(finalStage, 'COPY').find((c) => c.args.includes(`/app/${compiled}`));
    assert.ok(copy, `the final stage copies /app/${compiled}`);
    assert.equal(copy.args.split(/\s+/)[0], `--from=${builder}`);
    assert.equal(normalize(copy.args.split(/\s+/).at(-1) as string), compiled);
  });

  test('the default command is the compiled gateway with its flags, in exec form, and exposes its port', async () => {
    const cmd = inStage(finalStage, 'CMD').at(-1);
    assert.ok(cmd);
    assert.deepEqual(JSON.parse(cmd.args), COMPILED_GATEWAY);
    assert.deepEqual(
      inStage(finalStage, 'EXPOSE').map((e) => e.args),
      [service('gateway').environment?.MCP_PORT],
    );
  });

  test('every file it copies from the build context exists', async () => {
    for (const stage of dockerfile.stages) {
      for (const [source] of contextCopies(stage))
        assert.ok(existsSync(join(ROOT, source)), `${stage}: COPY ${source}`);
    }
  });

  test('.dockerignore keeps local state and dependencies out of the build context', async () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    for (const entry of ['node_modules', '.git', '.data', 'dist', '.env'])
      assert.ok(ignored.includes(entry), entry);
    for (const stage of dockerfile.stages) {
      for (const [source] of contextCopies(stage))
        assert.ok(
          !ignored.includes(source.replace(/^\.\//, '').split('/')[0] as string),
          `${source} is ignored`,
        );
    }
  });
});

describe('what the images run', () => {
  test('every command is a package.json script (npm run X, or node --import tsx on the script entry)', async () => {
    const commands = appCommands();
    assert.ok(commands.length >= 3, commands.map((c) => c.where).join(', '));
    for (const { where, command } of commands) assertPackageCommand(command, where);
    for (const run of dockerfile.instructions.filter((i) => i.keyword === 'RUN')) {
      for (const match of run.args.matchAll(/\bnpm run ([\w:-]+)/g))
        assert.ok(pkg.scripts[match[1] as string], `${run.stage}: npm run ${match[1]} has no script`);
    }
  });

  test('every npm run in a build stage finds the files its script loads in that stage', async () => {
    for (const run of dockerfile.instructions.filter((i) => i.keyword === 'RUN')) {
      for (const match of run.args.matchAll(/\bnpm run ([\w:-]+)/g)) {
        const entry = scriptEntry(pkg.scripts[match[1] as string] ?? '');
        if (!entry) continue;
        for (const file of loadedBy(entry).files) {
          if (file.startsWith('dist/')) continue; // what the script writes
          assert.ok(copiedInto(run.stage, file), `${run.stage}: npm run ${match[1]} needs ${file}`);
        }
      }
    }
  });

  test('the gateway runs with its Node.js flags: npm run gateway, the image and compose alike', async () => {
    // The Node.js check first (it must run on a Node.js that rejects these flags), then the gateway.
    assert.equal(
      pkg.scripts.gateway,
      `node --import tsx common/node-check.ts && node ${GATEWAY_NODE_FLAGS.join(' ')} --import tsx gateway/main.ts`,
    );
    assert.deepEqual(service('gateway').command, COMPILED_GATEWAY);
  });

  test('every file those commands load is in the image, and every package they import is in package.json', async () => {
    for (const { where, command } of appCommands()) {
      const run = assertPackageCommand(command, where);
      if (!run) continue;
      const { files, packages } = loadedBy(run.entry);
      // The compiled gateway holds its own sources; only the bundle must be in the image.
      for (const file of run.compiled ? [GATEWAY_BUNDLE] : files)
        assert.ok(copiedInto(finalStage, file), `${where}: ${file} is not copied into the image`);
      for (const name of packages)
        assert.ok(
          pkg.dependencies[name] ?? pkg.devDependencies[name],
          `${where}: imports ${name}, which package.json does not list`,
        );
    }
    // tsx runs the TypeScript in the image: a dev dependency of the package, installed by --include=dev.
    assert.ok(pkg.devDependencies.tsx, 'tsx is in devDependencies');
  });
});

// ---- profile "cluster" --------------------------------------------------------------------------

describe('docker-compose.yml profile "cluster": the production shape of npm run cluster', () => {
  const cluster = Object.fromEntries(
    Object.entries(compose.services).filter(([, svc]) => svc.profiles?.includes('cluster')),
  ) as Record<string, Service>;
  const inCluster = (name: string): Service => {
    const found = cluster[name];
    assert.ok(found, `cluster service ${name}`);
    return found;
  };
  const temporalServices = Object.entries(cluster).filter(([, svc]) =>
    svc.image?.startsWith('temporalio/server:'),
  );

  test('has PostgreSQL, the schema and namespace jobs, four Temporal services, the UI, the proxy, two gateways and the workers', async () => {
    assert.deepEqual(Object.keys(cluster).sort(), [
      'cluster-gateway-1',
      'cluster-gateway-2',
      'cluster-worker',
      'mcp-proxy',
      'postgresql',
      'temporal-frontend',
      'temporal-history',
      'temporal-matching',
      'temporal-namespace',
      'temporal-schema',
      'temporal-ui',
      'temporal-worker',
    ]);
    for (const [name, svc] of Object.entries(cluster)) assert.deepEqual(svc.profiles, ['cluster'], name);
  });

  test('no service of the profile adds a required variable: compose interpolates every profile, so `docker compose up` would need it too', async () => {
    const required = (text: string) => new Set([...text.matchAll(/\$\{(\w+):\?/g)].map((m) => m[1]));
    const all = required(read('docker-compose.yml'));
    const byDefault = required(JSON.stringify(services));
    assert.deepEqual([...all].sort(), [...byDefault].sort());
  });

  test(`Temporal: one container per service of the server v${TEMPORAL_SERVER_VERSION}, on PostgreSQL`, async () => {
    assert.deepEqual(
      temporalServices.map(([, svc]) => svc.environment?.SERVICES).sort(),
      [...TEMPORAL_SERVICES].sort(),
    );
    for (const [name, svc] of temporalServices) {
      assert.equal(svc.image, `temporalio/server:${TEMPORAL_SERVER_VERSION}`, name);
      const env = svc.environment ?? {};
      assert.equal(env.DB, 'postgres12', name);
      assert.ok(cluster[env.POSTGRES_SEEDS ?? ''], `${name}: POSTGRES_SEEDS names the profile's PostgreSQL`);
      assert.deepEqual([env.DBNAME, env.VISIBILITY_DBNAME], [TEMPORAL_DB, VISIBILITY_DB], name);
      // The dynamic config npm run cluster uses, mounted where DYNAMIC_CONFIG_FILE_PATH points.
      const mount = (svc.volumes ?? [])
        .map((spec) => bindMount(spec, {}))
        .find((m) => m.target.endsWith('.yaml'));
      assert.ok(mount, `${name}: a dynamic config file is mounted`);
      assert.equal(join(ROOT, mount.source), DYNAMIC_CONFIG, name);
      assert.equal(mount.target, join('/etc/temporal', env.DYNAMIC_CONFIG_FILE_PATH ?? ''), name);
      assert.equal(svc.depends_on?.['temporal-schema']?.condition, 'service_completed_successfully', name);
    }
  });

  test('schema job: the server SQL tool of the same release creates both databases and brings each schema up', async () => {
    const job = inCluster('temporal-schema');
    assert.equal(job.image, `temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
    assert.equal(job.restart, 'no');
    const env = job.environment ?? {};
    assert.equal(env.SQL_PLUGIN, 'postgres12');
    assert.ok(cluster[env.SQL_HOST ?? ''], 'SQL_HOST names the profile PostgreSQL');
    const script = (job.command ?? []).join(' ');
    for (const [database, schema] of Object.entries(SCHEMAS))
      assert.ok(script.includes(`${database}:${schema}`), database);
    for (const step of ['create-database', 'setup-schema', 'update-schema --schema-name'])
      assert.ok(script.includes(step), step);
    assert.equal(job.depends_on?.postgresql?.condition, 'service_healthy');
  });

  test('namespace job: default with the retention npm run cluster gives it, and the search attributes the gateway writes', async () => {
    const job = inCluster('temporal-namespace');
    assert.equal(job.restart, 'no');
    const script = (job.command ?? []).join(' ');
    assert.ok(script.includes(`--retention ${NAMESPACE_RETENTION}`), script);
    assert.match(script, /for name in [\w ]+; do/);
    const names = /for name in ([\w ]+); do/.exec(script)?.[1]?.split(' ') ?? [];
    assert.deepEqual(names.sort(), Object.keys(SEARCH_ATTRIBUTES).sort());
    for (const type of new Set(Object.values(SEARCH_ATTRIBUTES)))
      assert.ok(script.includes(`--type ${type}`), type);
    assert.equal(job.environment?.TEMPORAL_ADDRESS, 'temporal-frontend:7233');
    assert.equal(job.depends_on?.['temporal-frontend']?.condition, 'service_healthy');
  });

  test('start order: every dependency exists; health checks for service_healthy, one-shot jobs for service_completed_successfully', async () => {
    for (const [name, svc] of Object.entries(cluster)) {
      for (const [target, { condition }] of Object.entries(svc.depends_on ?? {})) {
        const dependency = cluster[target];
        assert.ok(dependency, `${name} → ${target} is in the profile`);
        if (condition === 'service_healthy')
          assert.ok(dependency.healthcheck, `${name} → ${target} has a health check`);
        else assert.equal(condition, 'service_completed_successfully', `${name} → ${target}`);
        if (condition === 'service_completed_successfully') assert.equal(dependency.restart, 'no', target);
      }
      const check = svc.healthcheck;
      if (check) assert.equal(check.test[0], 'CMD', `${name}: exec form`);
    }
    for (const name of ['cluster-gateway-1', 'cluster-gateway-2', 'cluster-worker'])
      assert.equal(
        inCluster(name).depends_on?.['temporal-namespace']?.condition,
        'service_completed_successfully',
        name,
      );
  });

  test('gateways and workers: the default stack image and commands, pointed at the frontend', async () => {
    const gateways = ['cluster-gateway-1', 'cluster-gateway-2'].map(inCluster);
    for (const svc of [...gateways, inCluster('cluster-worker')]) {
      assert.deepEqual(svc.build, service('gateway').build);
      assert.equal(svc.image, service('gateway').image);
      assert.equal(svc.environment?.TEMPORAL_ADDRESS, 'temporal-frontend:7233');
      assert.equal(svc.environment?.TEMPORAL_TASK_QUEUE, DEFAULT_TASK_QUEUE);
      assert.equal(svc.init, true);
    }
    for (const gateway of gateways) {
      assert.deepEqual(gateway.command, COMPILED_GATEWAY);
      assert.equal(gateway.environment?.MCP_AUTH_TOKENS, service('gateway').environment?.MCP_AUTH_TOKENS);
      assert.deepEqual(gateway.healthcheck?.test, service('gateway').healthcheck?.test);
      assert.equal(gateway.ports, undefined, 'reached through the proxy only');
    }
    assert.deepEqual(inCluster('cluster-worker').command, service('worker').command);
    assert.equal(inCluster('cluster-worker').deploy?.replicas, 3);
  });

  test('both gateways key task ids with one secret: MCP_SERVER_SECRET, or the one generated on the volume they share', async () => {
    const [one, two] = ['cluster-gateway-1', 'cluster-gateway-2'].map(inCluster) as [Service, Service];
    assert.deepEqual(one.environment, two.environment);
    assert.deepEqual(one.volumes, two.volumes);
    const dataDir = one.environment?.MCP_DATA_DIR ?? '';
    const shared = (one.volumes ?? [])
      .map((spec) => bindMount(spec, {}))
      .find((m) => dataDir.startsWith(`${m.target}/`));
    assert.ok(shared, `MCP_DATA_DIR ${dataDir} lies on a mounted volume`);
    assert.ok(compose.volumes && shared.source in compose.volumes, `${shared.source} is a named volume`);
  });

  test('proxy: HAProxy round robin over exactly the two gateways, checking /healthz, one published port', async () => {
    const proxy = inCluster('mcp-proxy');
    assert.match(proxy.image ?? '', /^haproxy:\d+\.\d+$/);
    const mount = (proxy.volumes ?? []).map((spec) => bindMount(spec, {}))[0];
    assert.ok(mount && mount.mode === 'ro');
    assert.equal(mount.target, '/usr/local/etc/haproxy/haproxy.cfg');
    const config = readFileSync(join(ROOT, mount.source), 'utf8');
    assert.match(config, /balance roundrobin/);
    assert.match(config, /uri \/healthz/);
    const servers = [...config.matchAll(/^\s*server\s+\S+\s+([\w-]+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`);
    assert.deepEqual(
      servers,
      ['cluster-gateway-1', 'cluster-gateway-2'].map((n) => `${n}:${inCluster(n).environment?.MCP_PORT}`),
    );
    const bind = /^\s*bind\s+\S*:(\d+)/m.exec(config)?.[1];
    const ports = (proxy.ports ?? []).map(parsePort);
    assert.equal(ports.length, 1);
    assert.equal(ports[0]?.containerPort, Number(bind));
    assert.deepEqual(Object.keys(proxy.depends_on ?? {}).sort(), ['cluster-gateway-1', 'cluster-gateway-2']);
    // The gateways share a principal's bounds as Temporal counts them (one namespace, one queue):
    // no count of them is typed in.
    const [first, second] = ['cluster-gateway-1', 'cluster-gateway-2'].map(
      (n) => inCluster(n).environment ?? {},
    );
    for (const env of [first, second]) assert.equal(env?.MCP_GATEWAY_REPLICAS, undefined);
    assert.ok(first?.TEMPORAL_TASK_QUEUE);
    assert.equal(first?.TEMPORAL_TASK_QUEUE, second?.TEMPORAL_TASK_QUEUE);
    assert.equal(first?.TEMPORAL_NAMESPACE, second?.TEMPORAL_NAMESPACE);
  });

  test('published ports: none shared with the default stack; Temporal and its UI on the host loopback only', async () => {
    const hostPorts = (svcs: Record<string, Service>) =>
      Object.values(svcs).flatMap((svc) => (svc.ports ?? []).map(parsePort).map((p) => p.hostPort));
    const clash = hostPorts(cluster).filter((port) => hostPorts(services).includes(port));
    assert.deepEqual(clash, []);
    for (const name of ['temporal-frontend', 'temporal-ui'])
      for (const port of (inCluster(name).ports ?? []).map(parsePort))
        assert.equal(port.host, '127.0.0.1', name);
    assert.equal(
      inCluster('temporal-frontend').healthcheck?.test.slice(1, 5).join(' '),
      'temporal operator cluster health',
    );
  });
});
