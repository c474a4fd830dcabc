// The package as a registry would serve it: the tarball `npm pack` makes (prepack builds it), made
// once. CI packs it before the suite and passes its path as PACKED_TARBALL (.ci/run); without it, a
// test file packs its own, one file at a time (packing rebuilds dist/package, which two packs at
// once would both write). Also: installing it into a clean folder, that folder's installed size, and
// what a host's compiler says of the installed declarations.
import { execFile } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pollUntil } from '../../common/poll.ts';
import {
  entryDeclarations,
  namedSpecifiers,
  type PackageManifest,
} from '../../scripts/declaration-imports.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Held while a test file packs: a folder (made or refused atomically) holding the packer's pid. */
const PACK_LOCK = join(ROOT, 'dist/.pack-lock');

let packed: Promise<string> | undefined;

/** The packed tarball's path: PACKED_TARBALL, else packed once for this process. */
export function packedTarball(): Promise<string> {
  const given = process.env.PACKED_TARBALL;
  if (given) {
    if (!existsSync(given)) throw new Error(`PACKED_TARBALL ${given} does not exist`);
    return Promise.resolve(given);
  }
  packed ??= packOnce();
  return packed;
}

async function packOnce(): Promise<string> {
  const into = mkdtempSync(join(tmpdir(), 'packed-package-'));
  process.once('exit', () => rmSync(into, { recursive: true, force: true }));
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  await pollUntil(takeLock, { timeoutMs: 300_000, intervalMs: 250 });
  try {
    // npm names the tarball on the last line.
    const { stdout } = await run('npm', ['pack', '--pack-destination', into], { cwd: ROOT });
    return join(into, stdout.trim().split('\n').at(-1) as string);
  } finally {
    rmSync(PACK_LOCK, { recursive: true, force: true });
  }
}

/** Takes the pack lock (true), or says it is held by a live packer (undefined); a dead one's is taken over. */
function takeLock(): true | undefined {
  try {
    mkdirSync(PACK_LOCK);
  } catch {
    const pid = Number(readdirSync(PACK_LOCK)[0]);
    if (pid && alive(pid)) return undefined;
    rmSync(PACK_LOCK, { recursive: true, force: true });
    return undefined;
  }
  writeFileSync(join(PACK_LOCK, String(process.pid)), '');
  return true;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm install <tarball> ...packages` in `folder` (made with a package.json when it has none), as a
 * team installs from the registry: the package's dependencies and required peers, no dev ones.
 * `withoutPeers`: its dependencies only (npm's --legacy-peer-deps), for a project that needs none of them.
 */
export async function installPacked(
  folder: string,
  packages: string[] = [],
  { withoutPeers = false } = {},
): Promise<void> {
  if (!existsSync(join(folder, 'package.json')))
    writeFileSync(join(folder, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
  const tarball = await packedTarball();
  const flags = [
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    ...(withoutPeers ? ['--legacy-peer-deps'] : []),
  ];
  await run('npm', ['install', tarball, ...packages, ...flags], { cwd: folder });
}

/** The installed package's declarations (path under its types folder → text) and its manifest. */
export function installedDeclarations(folder: string): {
  files: Map<string, string>;
  entries: string[];
  manifest: PackageManifest;
} {
  const installed = join(folder, 'node_modules/temporal-mcp-gateway');
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as PackageManifest;
  const typesRoot = 'dist/package/types';
  const files = new Map<string, string>();
  for (const file of readdirSync(join(installed, typesRoot), { recursive: true, encoding: 'utf8' }))
    if (file.endsWith('.d.ts')) files.set(file, readFileSync(join(installed, typesRoot, file), 'utf8'));
  return { files, entries: entryDeclarations(manifest, typesRoot), manifest };
}

/** tsc's errors for the project `tsconfig` of `folder`, one line each (the repository's compiler). */
async function typeErrors(folder: string, tsconfig: string): Promise<string[]> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const output = await run(process.execPath, [tsc, '-p', tsconfig, '--pretty', 'false'], {
    cwd: folder,
  }).then(
    ({ stdout }) => ({ stdout, failed: false }),
    (err: { stdout?: string; stderr?: string }) => ({ stdout: `${err.stdout}${err.stderr}`, failed: true }),
  );
  const errors = output.stdout.split('\n').filter((line) => /error TS\d+:/.test(line));
  if (output.failed && errors.length === 0) throw new Error(`tsc -p ${tsconfig} failed: ${output.stdout}`);
  return errors;
}

/**
 * What a host's compiler says of the project `tsconfig` in `folder`: `errors`, every one, and
 * `added`, those a control project does not get. The control has the same options and imports only
 * what the package's declarations reachable from `entries` name (the packages' own declarations, as
 * a host without the package would read them): an error in those is theirs, anything else is ours.
 */
export async function hostTypeCheck(
  folder: string,
  tsconfig: string,
  entries: (all: string[]) => string[] = (all) => all,
): Promise<{ errors: string[]; added: string[]; named: string[] }> {
  const declarations = installedDeclarations(folder);
  const named = namedSpecifiers(declarations.files, entries(declarations.entries));
  writeFileSync(
    join(folder, 'control.ts'),
    `${named.map((specifier, i) => `import type * as named${i} from '${specifier}';`).join('\n')}\nexport {};\n`,
  );
  writeFileSync(
    join(folder, 'tsconfig.control.json'),
    JSON.stringify({ extends: `./${tsconfig}`, files: ['control.ts'] }),
  );
  const [errors, upstream] = await Promise.all([
    typeErrors(folder, tsconfig),
    typeErrors(folder, 'tsconfig.control.json'),
  ]);
  return { errors, added: errors.filter((line) => !upstream.includes(line)), named };
}

/** What `folder/node_modules` holds: its packages and their files' bytes (links not followed). */
export function installedSize(folder: string): { packages: number; bytes: number; text: string } {
  let packages = 0;
  let bytes = 0;
  const root = join(folder, 'node_modules');
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const stat = lstatSync(join(root, file));
    if (!stat.isFile()) continue;
    bytes += stat.size;
    // A package's own manifest: node_modules/<name>/ or node_modules/@<scope>/<name>/, at any depth.
    if (/(^|\/node_modules\/)(@[^/]+\/)?[^/@][^/]*\/package\.json$/.test(file)) packages++;
  }
  return { packages, bytes, text: `${(bytes / 1e6).toFixed(1)} MB in ${packages} packages` };
}
